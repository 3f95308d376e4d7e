import { parseFieldValue } from './codecs-text.js';
import { atxHeading, sectionHeading, trimBlankEdges } from './guard.js';
import { readWholeNumber, wholeNumberProblem } from './numbers.js';
import { labelFor, titleDisplay, type FieldSpec, type Line, type Reporter, type SectionSpec, type TemplateSpec } from './spec.js';

/** A `### Heading` section the template does not define, kept so nothing the producer wrote is lost. */
export interface ExtraSection {
  heading: string;
  content: string;
}

const FIELD = /^\*\*([^*]+?):?\*\*:?\s*(.*)$/;

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const withoutNote = (s: string) => norm(s.replace(/\([^()]*\)/g, ''));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Builds a tolerant matcher for a title such as `Review — {agentType}` (any dash, any case). */
function titleMatcher(text: string, keyKind: 'int' | 'text' | undefined): RegExp {
  const parts = text.split(/(\{\w+\})/);
  const source = parts
    .map((p) => (/^\{\w+\}$/.test(p) ? (keyKind === 'int' ? '(\\d+)' : '(.+)') : escape(p).replace(/\s+—\s+/g, '\\s+(?:—|–|-{1,2})\\s+').replace(/\s+/g, '\\s+')))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}

/**
 * The reporter for the content of `key`: a part missing inside it (e.g. a field of a finding) is
 * advisory unless the key itself is one the spec states as required.
 */
function scoped(spec: TemplateSpec, key: string, report: Reporter): Reporter {
  if (spec.required.includes(key)) return report;
  return { diag: (...args) => report.diag(...args), missing: (label, line, hint, quiet) => report.missing(label, line, hint, quiet, true) };
}

/**
 * Reads the structured fields of one block annotation body according to its template. Findings
 * (enum violations, unexpected lines, missing required parts) go to `report`; the result holds
 * whatever could be read, so a partial annotation still yields its finished parts.
 */
export function extractFields(spec: TemplateSpec, bodyLines: Line[], report: Reporter): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  /** keys whose value was present but unusable (already diagnosed) */
  const invalid = new Set<string>();
  const content = trimBlankEdges(bodyLines);
  let at = 0;
  const title = content[0] && !content[0].code ? atxHeading(content[0].text, 2) : null;
  if (title !== null) {
    at = 1;
    const m = titleMatcher(spec.title.text, spec.title.keyKind).exec(title);
    if (!m) {
      // only a warning: a required title value it leaves out is still reported as missing below
      report.diag('FORGE_TITLE_MISMATCH', 'warning', `title "## ${title}" does not match "## ${titleDisplay(spec)}"`, { line: content[0].line });
    } else if (spec.title.key && spec.title.keyKind === 'int') {
      const n = readWholeNumber(m[1]);
      if (n !== undefined) fields[spec.title.key] = n;
      else {
        invalid.add(spec.title.key);
        report.diag('FORGE_VALUE_INVALID', 'error', `the number "${m[1]}" in the title ${wholeNumberProblem(m[1])}`, { line: content[0].line });
      }
    } else if (spec.title.key) {
      fields[spec.title.key] = m[1].trim();
    }
  } else if (content.length) {
    report.diag('FORGE_TITLE_MISSING', 'warning', `annotation does not start with "## ${titleDisplay(spec)}"`, { line: content[0].line });
  }

  let firstSection = content.findIndex((l, i) => i >= at && !l.code && sectionHeading(l.text) !== null);
  if (firstSection < 0) firstSection = content.length;
  readPreamble(spec, content.slice(at, firstSection), fields, report, invalid);
  readSections(spec, content.slice(firstSection), fields, report);

  for (const key of [...spec.required, ...(spec.expected ?? [])]) {
    const advisory = !spec.required.includes(key);
    const section = spec.sections.find((s) => s.key === key);
    const table = spec.preamble.find((b) => b.kind === 'table' && b.key === key);
    const codec = section?.codec ?? (table?.kind === 'table' ? table.codec : undefined);
    const v = fields[key];
    const line = key === spec.title.key ? content[0]?.line : undefined;
    if (v === undefined || (codec ? codec.isEmpty(v) : v === '')) report.missing(labelFor(spec, key), line, `add ${labelFor(spec, key)} ("${key}")${advisory ? '; the template shows it, the spec does not require it' : ''}`, invalid.has(key), advisory);
  }
  spec.check?.(fields, (severity, code, message, hint) => report.diag(code, severity, message, { hint }));
  return fields;
}

function readPreamble(spec: TemplateSpec, lines: Line[], fields: Record<string, unknown>, report: Reporter, invalid: Set<string>): void {
  const fieldSpecs = new Map<string, FieldSpec>();
  for (const b of spec.preamble) if (b.kind === 'fields') for (const f of b.fields) fieldSpecs.set(norm(f.label), f);
  const tableBlock = spec.preamble.find((b) => b.kind === 'table');
  let table: Line[] = [];
  const flushTable = () => {
    if (!table.length) return;
    if (tableBlock?.kind === 'table' && fields[tableBlock.key] === undefined) {
      const v = tableBlock.codec.parse(table, scoped(spec, tableBlock.key, report));
      if (v !== undefined) fields[tableBlock.key] = v;
    } else report.diag('FORGE_LINE_UNEXPECTED', 'warning', 'unexpected table before the first section', { line: table[0].line });
    table = [];
  };
  for (const l of lines) {
    const text = l.text.trim();
    if (text.startsWith('|')) {
      table.push(l);
      continue;
    }
    flushTable();
    if (text === '') continue;
    const m = FIELD.exec(text);
    const field = m ? fieldSpecs.get(norm(m[1])) : undefined;
    if (m && field) {
      if (fields[field.key] !== undefined) {
        report.diag('FORGE_FIELD_DUPLICATE', 'warning', `**${field.label}** appears more than once; the first is used`, { line: l.line });
        continue;
      }
      const v = parseFieldValue(field, m[2], l, report);
      if (v !== undefined) fields[field.key] = v;
      else invalid.add(field.key);
    } else if (m) {
      report.diag('FORGE_FIELD_UNKNOWN', 'info', `**${m[1]}** is not a field of this annotation type; ignored`, { line: l.line });
    } else {
      report.diag('FORGE_LINE_UNEXPECTED', 'warning', `"${text}" is outside any section`, { line: l.line, hint: 'put free text under a ### heading' });
    }
  }
  flushTable();
}

/** The template section a `### heading` belongs to; the parenthetical note of a heading is optional. */
export function findSection(spec: TemplateSpec, heading: string): SectionSpec | undefined {
  return spec.sections.find((x) => norm(x.heading) === norm(heading)) ?? spec.sections.find((x) => withoutNote(x.heading) === withoutNote(heading));
}

function readSections(spec: TemplateSpec, lines: Line[], fields: Record<string, unknown>, report: Reporter): void {
  const sections: { heading: string; line: number; lines: Line[] }[] = [];
  for (const l of lines) {
    const heading = l.code ? null : sectionHeading(l.text);
    if (heading !== null) sections.push({ heading, line: l.line, lines: [] });
    else sections[sections.length - 1]?.lines.push(l);
  }
  const extras: ExtraSection[] = [];
  for (const s of sections) {
    const known = findSection(spec, s.heading);
    const content = trimBlankEdges(s.lines);
    if (!known) {
      report.diag('FORGE_SECTION_UNKNOWN', 'info', `section "### ${s.heading}" is not part of this annotation type; kept in extraSections`, { line: s.line });
      extras.push({ heading: s.heading, content: content.map((l) => l.text).join('\n') });
      continue;
    }
    if (fields[known.key] !== undefined) {
      report.diag('FORGE_SECTION_DUPLICATE', 'warning', `section "### ${known.heading}" appears more than once; the first is used`, { line: s.line });
      continue;
    }
    const v = known.codec.parse(content, scoped(spec, known.key, report));
    if (v !== undefined) fields[known.key] = v;
  }
  if (extras.length) fields.extraSections = extras;
}
