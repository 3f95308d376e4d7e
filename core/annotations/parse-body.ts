import type { Diagnostic, Severity } from '../errors/index.js';
import { appendAll } from './append.js';
import { HIDDEN_CONTENT, opensHiddenComment } from './hidden-comment.js';
import { completionSentinel, isProtocolSentinel, partialSentinel, sentinelRule, sentinelTag, typeInfo } from './tags.js';
import { extractFields } from './template/extract.js';
import { trimBlankEdges } from './template/guard.js';
import type { Line, Reporter } from './template/spec.js';
import { templateFor } from './templates/index.js';
import { classifyLine, hasEmbeddedTag, tokenize, type LineToken } from './tokenize.js';
import type { Annotation, AnnotationStatus, CommentRef, ParseResult } from './types.js';

export interface ParseOptions {
  /** label for diagnostics (`file`), e.g. `comment 3 (id 1234)` or an input path */
  source?: string;
  comment?: CommentRef;
}

type SentinelToken = Extract<LineToken, { kind: 'sentinel' }>;
interface Open {
  type: string;
  line: number;
  lines: Line[];
  diagnostics: Diagnostic[];
  /** a sentinel of another annotation appeared: then only the annotation's own sentinel completes it */
  mismatched?: boolean;
  /** ended by a malformed (e.g. truncated) FORGE tag: what an interrupted producer leaves */
  cut?: boolean;
}

const URL_VALUE = /^https?:\/\/\S+$/;

/**
 * Parses one comment body into its annotations (spec section 3). Never throws on any input:
 * malformed, truncated or unknown content becomes diagnostics, and an annotation is `complete`
 * only when its own completion sentinel closes it (or, for the types the spec gives no sentinel,
 * by structure: it has a body and was neither cut off by a truncated tag nor ended by another
 * annotation's sentinel). Template fields never decide completion.
 */
export function parseBody(body: string, options: ParseOptions = {}): ParseResult {
  const annotations: Annotation[] = [];
  const diagnostics: Diagnostic[] = [];
  const diag = (list: Diagnostic[], code: string, severity: Severity, message: string, line?: number, hint?: string) =>
    list.push({ code, severity, message, ...(options.source ? { file: options.source } : {}), ...(line ? { line } : {}), ...(hint ? { hint } : {}) });

  let current = null as Open | null;
  /** the annotation a sentinel just closed: more text before the next tag means the sentinel was not last */
  let closed = null as Annotation | null;

  const finish = (sentinel: SentinelToken | null) => {
    if (!current) return;
    const a = finishBlock(current, sentinel, options, diag);
    annotations.push(a);
    closed = sentinel ? a : null;
    current = null;
  };

  for (const t of tokenize(body)) {
    switch (t.kind) {
      case 'text':
        if (current) current.lines.push({ text: t.text, line: t.line, ...(t.code ? { code: true } : {}) });
        else if (closed && t.text.trim() !== '') {
          diag(closed.diagnostics, 'FORGE_SENTINEL_NOT_LAST', 'warning', `text follows the sentinel of ${closed.tag}; a sentinel must be the final line (3.2)`, t.line, 'move the text above the sentinel or into its own comment');
          closed = null;
        }
        if (t.code) {
          if (looksLikeTag(t.text) || hasEmbeddedTag(t.text)) {
            diag(current?.diagnostics ?? diagnostics, 'FORGE_TAG_IN_CODE', 'info', 'a FORGE tag inside a code block is shown as code and ignored', t.line);
          }
        } else if (hasEmbeddedTag(t.text)) {
          diag(current?.diagnostics ?? diagnostics, 'FORGE_TAG_NOT_OWN_LINE', 'info', 'a FORGE tag inside a line of text is ignored; tags must stand on their own line (3.1)', t.line);
        }
        if (current && !t.code && opensHiddenComment(t.text)) {
          // an error: what readers cannot see must not pass check or decide the stage (see
          // hasHiddenContent); a warning in an unknown type, which is skipped, never failed (7.2.4)
          diag(current.diagnostics, HIDDEN_CONTENT, typeInfo(current.type) ? 'error' : 'warning', `an HTML comment (<!--) opened here is not closed on this line: GitHub hides what follows up to the next --> from readers, but it is read as part of FORGE:${current.type}; the annotation${options.comment?.author ? ` (posted by ${options.comment.author})` : ''} is not trusted`, t.line, 'close the comment on the same line, or remove it; if you did not write it, delete the comment that holds it');
        }
        break;
      case 'open': {
        finish(null);
        closed = null;
        const info = typeInfo(t.type);
        let target: Diagnostic[];
        if (info?.form === 'marker') {
          const a = leaf(t.type, 'marker', t.line, options);
          annotations.push(a);
          target = a.diagnostics;
        } else {
          current = { type: t.type, line: t.line, lines: [], diagnostics: [] };
          target = current.diagnostics;
          if (info?.form === 'inline') {
            diag(target, 'FORGE_FORM_MISMATCH', 'error', `FORGE:${t.type} carries its value inline`, t.line, `write <!-- FORGE:${t.type}: {url} --> (3.4)`);
          }
        }
        if (!t.canonical) diag(target, 'FORGE_TAG_NONCANONICAL', 'warning', `opening tag "${t.text.trim()}" is not written exactly as <!-- FORGE:${t.type} -->`, t.line);
        break;
      }
      case 'inline': {
        finish(null);
        closed = null;
        const a = leaf(t.type, 'inline', t.line, options, t.value);
        const info = typeInfo(t.type);
        if (!t.canonical && t.value) diag(a.diagnostics, 'FORGE_TAG_NONCANONICAL', 'warning', `inline tag "${t.text.trim()}" is not written exactly as <!-- FORGE:${t.type}: {value} -->`, t.line);
        if (!t.value) {
          a.status = 'interrupted';
          a.completion = null;
          // an unknown type is skipped, never an error (7.2.4): its form is not ours to judge
          diag(a.diagnostics, 'FORGE_INLINE_EMPTY', info ? 'error' : 'warning', `FORGE:${t.type} has no value`, t.line, `write <!-- FORGE:${t.type}: {value} -->`);
        } else if (info?.form === 'block') {
          a.kind = info.kind;
          a.status = 'interrupted';
          a.completion = null;
          diag(a.diagnostics, 'FORGE_FORM_MISMATCH', 'error', `FORGE:${t.type} is a block annotation, not an inline value`, t.line, `start it with <!-- FORGE:${t.type} --> on its own line`);
        } else if (info?.form === 'marker') {
          a.form = 'marker';
          diag(a.diagnostics, 'FORGE_FORM_MISMATCH', 'info', `marker FORGE:${t.type} carries no value; the value is ignored`, t.line);
        } else if (info && !URL_VALUE.test(t.value)) {
          diag(a.diagnostics, 'FORGE_INLINE_NOT_URL', 'warning', `FORGE:${t.type} value "${t.value}" is not an http(s) URL`, t.line, 'point it at the linkable artifact');
        }
        annotations.push(a);
        break;
      }
      case 'sentinel': {
        const rule = current ? sentinelRule(current.type) : null;
        const names = t.which === 'COMPLETE' ? rule?.complete : rule?.partial;
        if (current && names?.includes(t.name)) {
          finish(t);
          break;
        }
        // only protocol sentinels matter; other `<!-- X:COMPLETE -->` comments are ordinary text
        const protocol = isProtocolSentinel(t.name) || t.name === current?.type;
        if (!protocol) {
          current?.lines.push({ text: t.text, line: t.line });
          break;
        }
        if (current) {
          const expected = completionSentinel(current.type) ?? sentinelTag(`FORGE:${current.type}`, 'COMPLETE');
          current.mismatched = true;
          // about an unknown type, this is a warning at most: it is skipped, never failed on (7.2.4)
          const severity: Severity = typeInfo(current.type) ? 'error' : 'warning';
          diag(current.diagnostics, 'FORGE_SENTINEL_MISMATCH', severity, `"${t.text.trim()}" does not close FORGE:${current.type}; its sentinels are ${expected} and ${partialSentinel(current.type)}`, t.line, `end FORGE:${current.type} with ${expected}`);
          if (t.forge) finish(null); // any `<!-- FORGE:` tag ends the annotation (3.1)
        } else if (closed && !t.forge) {
          diag(closed.diagnostics, 'FORGE_SENTINEL_NOT_LAST', 'warning', `"${t.text.trim()}" follows the sentinel of ${closed.tag}`, t.line);
          closed = null;
        } else {
          diag(diagnostics, 'FORGE_SENTINEL_ORPHAN', 'warning', `sentinel "${t.text.trim()}" has no open annotation before it`, t.line, 'a sentinel is the final line of the annotation it closes');
          if (t.forge) closed = null;
        }
        break;
      }
      case 'malformed':
        diag(current?.diagnostics ?? diagnostics, 'FORGE_TAG_MALFORMED', 'warning', `"${t.text.trim().slice(0, 80)}" looks like a FORGE tag but is not a valid one; it ends any annotation before it`, t.line, 'write <!-- FORGE:{TYPE} --> with an upper-case TYPE');
        if (current) current.cut = true;
        finish(null);
        closed = null;
        break;
    }
  }
  finish(null);
  return { annotations, diagnostics };
}

/** A code line that would be a FORGE tag or protocol sentinel outside the code block. */
function looksLikeTag(text: string): boolean {
  const t = classifyLine(text, 0);
  return t.kind !== 'text' && (t.kind !== 'sentinel' || isProtocolSentinel(t.name));
}

/**
 * Why a block of a type without a stated sentinel is not complete by structure, or null when it is:
 * it needs a body, must not be cut off by a truncated tag or ended by another annotation's
 * sentinel, and must not lack a part the spec states as required (template parts do not count).
 */
function structureProblem(open: Open, bodyLines: Line[], missing: { label: string; advisory?: boolean }[]): string | null {
  if (open.mismatched) return 'was ended by a sentinel that is not its own';
  if (open.cut) return 'has no sentinel and was cut off by a malformed tag';
  if (bodyLines.length === 0) return 'has no sentinel and no body';
  const required = missing.filter((m) => !m.advisory);
  return required.length ? `has no sentinel and lacks ${required.map((m) => m.label).join(', ')}` : null;
}

type DiagFn = (list: Diagnostic[], code: string, severity: Severity, message: string, line?: number, hint?: string) => void;

function leaf(type: string, form: 'inline' | 'marker', line: number, options: ParseOptions, value?: string): Annotation {
  const info = typeInfo(type);
  return {
    tag: `FORGE:${type}`,
    type,
    kind: info?.kind ?? 'unknown',
    form,
    status: 'complete',
    completion: 'presence',
    sentinel: null,
    ...(value !== undefined ? { value } : {}),
    body: '',
    line,
    endLine: line,
    ...(options.comment ? { comment: options.comment } : {}),
    diagnostics: [],
  };
}

function finishBlock(open: Open, sentinel: SentinelToken | null, options: ParseOptions, diag: DiagFn): Annotation {
  const info = typeInfo(open.type);
  const rule = sentinelRule(open.type);
  const template = templateFor(open.type);
  const bodyLines = trimBlankEdges(open.lines);
  const missing: { label: string; line?: number; hint?: string; quiet?: boolean; advisory?: boolean }[] = [];
  const found: Diagnostic[] = [];
  const reporter: Reporter = {
    diag: (code, severity, message, o = {}) => diag(found, code, severity, message, o.line, o.hint),
    missing: (label, line, hint, quiet, advisory) => missing.push({ label, line, hint, quiet, advisory }),
  };
  const fields = template ? extractFields(template, bodyLines, reporter) : undefined;

  let status: AnnotationStatus = 'interrupted';
  let completion: Annotation['completion'] = null;
  const timeLimited = sentinel?.which === 'PARTIAL' && rule.timeLimited === true;
  if (timeLimited) {
    status = 'complete';
    completion = 'time-limited';
  } else if (sentinel) {
    status = sentinel.which === 'COMPLETE' ? 'complete' : 'partial';
    completion = status === 'complete' ? 'sentinel' : null;
  } else if (template && !rule.stated && !structureProblem(open, bodyLines, missing)) {
    status = 'complete';
    completion = 'structure';
  }

  const a: Annotation = {
    tag: `FORGE:${open.type}`,
    type: open.type,
    kind: info?.kind ?? 'unknown',
    form: 'block',
    status,
    completion,
    sentinel: sentinel ? sentinel.text.trim() : null,
    body: bodyLines.map((l) => l.text).join('\n'),
    ...(fields ? { fields } : {}),
    line: open.line,
    endLine: sentinel ? sentinel.line : (bodyLines[bodyLines.length - 1]?.line ?? open.line),
    ...(options.comment ? { comment: options.comment } : {}),
    diagnostics: open.diagnostics,
  };
  if (!info) diag(a.diagnostics, 'FORGE_UNKNOWN_TYPE', 'info', `FORGE:${open.type} is not a type this consumer knows; skipped (7.2.4)`, open.line);
  if (sentinel && !sentinel.canonical) diag(a.diagnostics, 'FORGE_TAG_NONCANONICAL', 'warning', `sentinel "${sentinel.text.trim()}" is not written exactly as <!-- ${sentinel.name}:${sentinel.which} -->`, sentinel.line);
  const expected = completionSentinel(open.type);
  // unknown types are skipped (7.2.4): their status is reported but never flagged for a re-run
  if (info && status === 'interrupted') {
    const why = expected || !template
      ? `has no completion sentinel ${expected ?? sentinelTag(`FORGE:${open.type}`, 'COMPLETE')}`
      : structureProblem(open, bodyLines, missing);
    diag(a.diagnostics, 'FORGE_INTERRUPTED', 'warning', `FORGE:${open.type} ${why}; treated as interrupted (3.3)`, open.line, 'delete it and re-run the phase that produces it');
  } else if (info && status === 'partial') {
    diag(a.diagnostics, 'FORGE_PARTIAL', 'warning', `FORGE:${open.type} is marked partial (3.3)`, sentinel?.line, 'delete it and re-run the phase that produces it');
  } else if (timeLimited) {
    diag(a.diagnostics, 'FORGE_TIME_LIMITED', 'info', `FORGE:${open.type} ended at its time budget: ${sentinel!.text.trim()} is its time-limited completion sentinel (4.1), so it is complete as far as it goes`, sentinel!.line);
  }
  // a part the spec states as required is an error in a complete annotation; a template part the
  // spec does not require is a warning at most (info in a partial or time-limited one, where parts may be absent)
  const missingSeverity = (m: { advisory?: boolean }): Severity => (status === 'partial' || timeLimited ? 'info' : status === 'complete' && !m.advisory ? 'error' : 'warning');
  for (const m of missing) if (!m.quiet) diag(a.diagnostics, 'FORGE_FIELD_MISSING', missingSeverity(m), `${m.label} is missing`, m.line ?? open.line, m.hint);
  appendAll(a.diagnostics, found);
  // reading order; findings without a line (cross-field checks) last
  a.diagnostics.sort((x, y) => (x.line ?? Infinity) - (y.line ?? Infinity));
  return a;
}
