import type { Severity } from '../../errors/index.js';

/**
 * A template describes one annotation type's Markdown layout once; the generic extractor reads it
 * and the generic renderer writes it, which is what keeps render -> parse -> render identical.
 */

/** A line of a comment body with its 1-based line number. */
export interface Line {
  text: string;
  line: number;
  /** inside a fenced or indented code block: never structure (a `### ` there is not a section) */
  code?: boolean;
}

/** Collects parse findings for one annotation. */
export interface Reporter {
  diag(code: string, severity: Severity, message: string, options?: { line?: number; hint?: string }): void;
  /**
   * a required part is absent (`label` is what a reader sees, e.g. `Findings[2].Prevention`);
   * `quiet` when a diagnostic already said why (e.g. a count that is not a number); `advisory`
   * when the spec does not state the part as required (a warning, never an error)
   */
  missing(label: string, line?: number, hint?: string, quiet?: boolean, advisory?: boolean): void;
}

/** Collects reasons to refuse a render; the renderer throws them as one SfError. */
export class RenderProblems {
  readonly items: { message: string; hint: string }[] = [];
  add(message: string, hint: string): void {
    this.items.push({ message, hint });
  }
  get empty(): boolean {
    return this.items.length === 0;
  }
}

/** Parses a section's content lines into a value, and renders a value back to lines. */
export interface Codec<T = unknown> {
  parse(lines: Line[], report: Reporter): T | undefined;
  /** `where` names the data key for messages, e.g. `deliverables` */
  render(value: unknown, where: string, problems: RenderProblems): string[];
  /** true when `value` counts as absent (omitted from output, missing when required) */
  isEmpty(value: unknown): boolean;
}

export type FieldKind = 'text' | 'code' | 'int' | 'list' | 'iso';

/** A `**Label**: value` line. */
export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  enum?: readonly string[];
}

/** A column of a Markdown table. */
export interface ColumnSpec {
  key: string;
  header: string;
  enum?: readonly string[];
  /** `int`: whole number; `index`: the row number, written by render and checked by parse */
  kind?: 'text' | 'int' | 'index';
  /** rendered as `-` when absent, and `-` parses as absent */
  optional?: boolean;
}

export type PreambleBlock = { kind: 'fields'; fields: FieldSpec[] } | { kind: 'table'; key: string; label: string; codec: Codec };

/** `text` is the heading after `## `; `{key}` marks the one variable part (e.g. `Review — {agentType}`). */
export interface TitleSpec {
  text: string;
  key?: string;
  keyKind?: 'int' | 'text';
}

export interface SectionSpec {
  key: string;
  heading: string;
  codec: Codec;
}

/** Emits a finding; `error` findings make render refuse and mark a parsed annotation invalid. */
export type CheckReport = (severity: Severity, code: string, message: string, hint?: string) => void;

export interface TemplateSpec {
  type: string;
  title: TitleSpec;
  preamble: PreambleBlock[];
  sections: SectionSpec[];
  /**
   * keys the spec (or the extension) states as required: absent or empty in a complete annotation
   * is an error (FORGE_FIELD_MISSING). Only INVESTIGATOR's field table and SKIT_EVIDENCE state any.
   */
  required: string[];
  /**
   * keys the template shows but the spec does not state as required: parse warns when one is
   * absent (never an error, never decides completion); render still writes the whole template and
   * asks for them unless `--partial`.
   */
  expected?: string[];
  /** cross-field checks on parsed or to-be-rendered fields */
  check?: (fields: Record<string, unknown>, report: CheckReport) => void;
}

/** Every data key a template accepts (used to refuse typos in render data). */
export function templateKeys(spec: TemplateSpec): string[] {
  const keys: string[] = [];
  if (spec.title.key) keys.push(spec.title.key);
  for (const block of spec.preamble) {
    if (block.kind === 'fields') keys.push(...block.fields.map((f) => f.key));
    else keys.push(block.key);
  }
  keys.push(...spec.sections.map((s) => s.key), 'extraSections');
  return keys;
}

/** The title as a reader should write it: `Review — <agentType>`. */
export function titleDisplay(spec: TemplateSpec): string {
  return spec.title.key ? spec.title.text.replace(`{${spec.title.key}}`, `<${spec.title.key}>`) : spec.title.text;
}

/** The label a reader sees for a data key (bold label, table name or section heading). */
export function labelFor(spec: TemplateSpec, key: string): string {
  if (spec.title.key === key) return `the ${key} in the title "## ${titleDisplay(spec)}"`;
  for (const block of spec.preamble) {
    if (block.kind === 'fields') {
      const f = block.fields.find((x) => x.key === key);
      if (f) return `**${f.label}**`;
    } else if (block.key === key) return `${block.label} table`;
  }
  const s = spec.sections.find((x) => x.key === key);
  return s ? `### ${s.heading}` : key;
}
