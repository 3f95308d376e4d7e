import { SfError } from '../../errors/index.js';
import { appendAll } from '../append.js';
import { completionSentinel, openingTag, partialSentinel } from '../tags.js';
import { renderFieldValue } from './codecs-text.js';
import { findSection } from './extract.js';
import { guardLines, guardOpenBlocks, requireSingleLine, valueLines } from './guard.js';
import { isWholeNumber } from './numbers.js';
import { RenderProblems, labelFor, templateKeys, type TemplateSpec } from './spec.js';

export interface RenderOptions {
  /** end with the partial sentinel (3.3) instead of the completion sentinel; required fields may be absent */
  partial?: boolean;
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

/**
 * Renders structured data to the exact Markdown template of `spec`, the completion sentinel (when
 * the type has one) as the final line. Throws SF_E_ANNOTATION, naming every problem, when a
 * required field is missing, a value is outside its enum, or content would not parse back.
 */
export function renderTemplate(spec: TemplateSpec, data: unknown, options: RenderOptions = {}): string {
  const problems = new RenderProblems();
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SfError('SF_E_ANNOTATION', `cannot render FORGE:${spec.type}: the data must be a JSON object`, {
      hint: `pass an object with the keys ${templateKeys(spec).join(', ')}`,
    });
  }
  const d = data as Record<string, unknown>;
  const keys = templateKeys(spec);
  for (const k of Object.keys(d)) {
    if (!keys.includes(k)) problems.add(`unknown key "${k}"`, `FORGE:${spec.type} accepts ${keys.join(', ')}`);
  }

  const isMissing = (key: string): boolean => {
    const section = spec.sections.find((s) => s.key === key);
    const table = spec.preamble.find((b) => b.kind === 'table' && b.key === key);
    const codec = section?.codec ?? (table?.kind === 'table' ? table.codec : undefined);
    return codec ? codec.isEmpty(d[key]) : absent(d[key]);
  };
  const mustHave = options.partial ? (spec.title.key ? [spec.title.key] : []) : [...spec.required, ...(spec.expected ?? [])];
  for (const key of mustHave) {
    if (isMissing(key)) problems.add(`required field "${key}" (${labelFor(spec, key)}) is missing`, `add "${key}" to the data${options.partial ? '' : ', or pass --partial to render an unfinished annotation'}`);
  }

  const lines = [openingTag(spec.type), `## ${renderTitle(spec, d, problems)}`];
  const blocks: string[][] = [];
  for (const block of spec.preamble) {
    if (block.kind === 'table') {
      if (!isMissing(block.key)) blocks.push(block.codec.render(d[block.key], block.key, problems));
      continue;
    }
    const fieldLines: string[] = [];
    for (const f of block.fields) {
      if (absent(d[f.key])) continue;
      const v = renderFieldValue(f, d[f.key], problems);
      if (v !== undefined) fieldLines.push(`**${f.label}**: ${v}`);
    }
    if (fieldLines.length) blocks.push(fieldLines);
  }
  for (const b of blocks) appendAll(lines, ['', ...b]);

  for (const s of spec.sections) {
    if (isMissing(s.key)) continue;
    lines.push('', `### ${s.heading}`);
    appendAll(lines, s.codec.render(d[s.key], s.key, problems));
  }
  appendAll(lines, renderExtras(spec, d.extraSections, problems));

  spec.check?.(d, (severity, _code, message, hint) => {
    if (severity === 'error') problems.add(message, hint ?? 'fix the value');
  });
  const sentinel = options.partial ? partialSentinel(spec.type) : completionSentinel(spec.type);
  if (sentinel) lines.push('', sentinel);

  if (!problems.empty) {
    const [first] = problems.items;
    throw new SfError('SF_E_ANNOTATION', `cannot render FORGE:${spec.type}: ${problems.items.map((p) => p.message).join('; ')}`, {
      hint: first.hint,
      data: { problems: problems.items },
    });
  }
  return lines.join('\n');
}

function renderTitle(spec: TemplateSpec, d: Record<string, unknown>, problems: RenderProblems): string {
  const { text, key, keyKind } = spec.title;
  if (!key) return text;
  const v = d[key];
  if (keyKind === 'int') {
    if (!absent(v) && !isWholeNumber(v, 1)) problems.add(`${key} must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`, `set "${key}" to the issue number, e.g. 128`);
  } else if (!absent(v) && (typeof v !== 'string' || !requireSingleLine(v, key, problems))) {
    if (typeof v !== 'string') problems.add(`${key} must be a string`, `set "${key}" to a one-line string`);
  }
  return text.replace(`{${key}}`, typeof v === 'string' ? v.trim() : String(v));
}

function renderExtras(spec: TemplateSpec, extras: unknown, problems: RenderProblems): string[] {
  if (extras === undefined) return [];
  if (!Array.isArray(extras)) {
    problems.add('extraSections must be an array of {heading, content}', 'remove "extraSections" or make it an array');
    return [];
  }
  const out: string[] = [];
  extras.forEach((x, i) => {
    const at = `extraSections[${i}]`;
    const heading = (x as { heading?: unknown })?.heading;
    const content = (x as { content?: unknown })?.content;
    if (typeof heading !== 'string' || !heading.trim() || typeof content !== 'string') {
      problems.add(`${at} needs a "heading" and a "content" string`, `fix ${at}`);
      return;
    }
    requireSingleLine(heading, `${at}.heading`, problems);
    const known = findSection(spec, heading);
    if (known) problems.add(`${at}.heading "${heading}" is a section of FORGE:${spec.type}`, `use the "${known.key}" key instead`);
    const lines = valueLines(content);
    guardLines(lines, at, problems);
    guardOpenBlocks(lines, at, problems);
    out.push('', `### ${heading.trim()}`);
    appendAll(out, lines);
  });
  return out;
}

