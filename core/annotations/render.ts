import { SfError } from '../errors/index.js';
import { ANNOTATION_TYPES, inlineTag, openingTag, typeInfo } from './tags.js';
import { renderTemplate, type RenderOptions } from './template/render-template.js';
import { requireSingleLine } from './template/guard.js';
import { RenderProblems } from './template/spec.js';
import { templateFor } from './templates/index.js';

export type { RenderOptions };

/**
 * Renders one annotation of `type` (with or without the `FORGE:` prefix) from structured data:
 * block types through their template (completion sentinel last, or the partial sentinel with
 * `partial`), inline types from `{ "value": "https://..." }`, markers from nothing.
 * Throws SF_E_ANNOTATION naming the missing or invalid field.
 */
export function renderAnnotation(type: string, data: unknown, options: RenderOptions = {}): string {
  const info = typeInfo(type);
  const template = templateFor(type);
  if (template) return renderTemplate(template, data ?? {}, options);
  if (!info) {
    throw new SfError('SF_E_ANNOTATION', `cannot render FORGE:${type}: it is not a type this implementation knows`, {
      hint: `known types: ${Object.keys(ANNOTATION_TYPES).join(', ')}`,
    });
  }
  if (options.partial) {
    throw new SfError('SF_E_USAGE', `FORGE:${type} has no partial form`, { hint: 'only block annotations take --partial' });
  }
  if (info.form === 'marker') return openingTag(type);
  const value = (data as { value?: unknown } | null)?.value;
  const problems = new RenderProblems();
  if (typeof value !== 'string' || !value.trim()) {
    throw new SfError('SF_E_ANNOTATION', `cannot render FORGE:${type}: required field "value" is missing`, { hint: `pass {"value": "https://example.com/artifact"}` });
  }
  requireSingleLine(value, 'value', problems);
  if (value.includes('-->')) problems.add('value may not contain "-->"', 'the value ends at the closing -->');
  if (!problems.empty) throw new SfError('SF_E_ANNOTATION', `cannot render FORGE:${type}: ${problems.items[0].message}`, { hint: problems.items[0].hint });
  return inlineTag(type, value.trim());
}
