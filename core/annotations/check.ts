import type { Diagnostic } from '../errors/index.js';
import { checkChain, type ChainEntry, type ChainReport } from './chain.js';
import { evaluateLabels, type LabelState } from './labels.js';
import { completionSentinel, CONFORMANCE_REQUIRED, normalizeTypeName, partialSentinel, sentinelTag, typeInfo } from './tags.js';
import { templateFor } from './templates/index.js';
import type { ParseResult } from './types.js';

export interface CheckEntry extends ChainEntry {
  required: boolean;
  ok: boolean;
  /** why a required entry fails */
  problem?: 'missing' | 'partial' | 'interrupted' | 'invalid';
}

/** The conformance report of spec 7.3: presence, completion, terminal labels, plus chain order. */
export interface ConformanceReport {
  ok: boolean;
  required: string[];
  entries: CheckEntry[];
  chain: ChainReport;
  labels: LabelState;
  /** unknown types found (skipped per 7.2.4) */
  skipped: { tag: string; count: number }[];
  diagnostics: Diagnostic[];
}

/** Parses `INVESTIGATOR,FORGE:BUILDER` into TYPE names; null for an entry that is not a type name. */
export function parseRequireList(list: string): { types: string[]; invalid: string[] } {
  const types: string[] = [];
  const invalid: string[] = [];
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const t = normalizeTypeName(raw);
    if (t) {
      if (!types.includes(t)) types.push(t);
    } else invalid.push(raw);
  }
  return { types, invalid };
}

/**
 * Runs the conformance check over a parsed thread. A required type passes when it is present and
 * its latest occurrence is complete and free of error diagnostics. Without `require`, the spec's
 * 7.3 list is used (INVESTIGATOR, CONTRACT, CONTEXT, ARCHITECT, BUILDER, TRAJECTORY).
 */
export function runConformanceCheck(parsed: ParseResult, options: { require?: readonly string[]; labels?: readonly string[] | null } = {}): ConformanceReport {
  const required = [...(options.require ?? CONFORMANCE_REQUIRED)];
  const chain = checkChain(parsed.annotations, required);
  const entries: CheckEntry[] = chain.entries
    .filter((e) => required.includes(e.type) || e.count > 0)
    .map((e) => {
      const isRequired = required.includes(e.type);
      const problem: CheckEntry['problem'] =
        e.count === 0 ? 'missing' : e.status === 'partial' ? 'partial' : e.status === 'interrupted' ? 'interrupted' : e.errors > 0 ? 'invalid' : undefined;
      return { ...e, required: isRequired, ok: problem === undefined, ...(problem ? { problem } : {}) };
    })
    .sort((a, b) => Number(b.required) - Number(a.required) || required.indexOf(a.type) - required.indexOf(b.type));
  const skippedMap = new Map<string, number>();
  for (const a of parsed.annotations) if (a.kind === 'unknown' && !required.includes(a.type)) skippedMap.set(a.tag, (skippedMap.get(a.tag) ?? 0) + 1);
  const labels = evaluateLabels(options.labels ?? null, parsed.annotations);
  const requiredOk = entries.filter((e) => e.required).every((e) => e.ok);
  return {
    ok: requiredOk,
    required,
    entries,
    chain,
    labels,
    skipped: [...skippedMap].map(([tag, count]) => ({ tag, count })),
    diagnostics: [...chain.diagnostics, ...labels.diagnostics],
  };
}

/** The first column of a required type's line: what its entry says (`ok`, `problem`), four wide. */
const MARKERS: Record<NonNullable<CheckEntry['problem']> | 'ok', string> = { ok: 'ok  ', missing: 'MISS', partial: 'PART', interrupted: 'INTR', invalid: 'BAD ' };

/** ` (comment N)` for a comment's 0-based index, ` (issue body)` for -1, nothing without a comment. */
function commentLabel(index: number | undefined): string {
  if (index === undefined) return '';
  return index < 0 ? ' (issue body)' : ` (comment ${index + 1})`;
}

/** The plain-text report, in the shape of the spec's 7.3 shell checks. */
export function formatConformanceReport(r: ConformanceReport): string[] {
  const out: string[] = [];
  for (const e of r.entries.filter((x) => x.required)) out.push(e.count > 0 ? `${MARKERS[e.problem ?? 'ok']} ${e.tag} (${e.count})` : `${MARKERS.missing} ${e.tag}`);
  for (const e of r.entries.filter((x) => x.count > 0)) {
    const name = e.type.toLowerCase();
    const note = e.required ? '' : ' (not required)';
    if (e.status === 'complete') {
      const how =
        e.completion === 'structure' ? ' (by structure: the spec defines no sentinel for this type)' : e.completion === 'time-limited' ? ` (time-limited: ${partialSentinel(e.type)} ended it at its time budget)` : '';
      out.push(e.errors ? `${name} complete, with ${e.errors} error${e.errors > 1 ? 's' : ''}${note}` : `${name} complete${how}${note}`);
    } else {
      const sentinel = completionSentinel(e.type);
      const why = e.status === 'partial' ? '' : sentinel ? `: no ${sentinel}` : templateFor(e.type) ? ': no sentinel, and not complete by structure (see FORGE_INTERRUPTED)' : `: no ${sentinelTag(`FORGE:${e.type}`, 'COMPLETE')}`;
      out.push(`${name} INCOMPLETE (${e.status}${why})${note}`);
    }
  }
  for (const s of r.skipped) out.push(`skip ${s.tag} (${s.count}, unknown type)`);
  if (r.labels.labels === null) out.push('labels: (not provided)');
  else out.push(`labels: ${JSON.stringify(r.labels.labels.filter((l) => l.startsWith('workflow:')))}`);
  if (r.labels.terminal.length) out.push(`terminal: ${r.labels.terminal.join(', ')} (processing stops)`);
  for (const m of r.labels.errorMarkers) {
    out.push(`marker FORGE:${m.type}${commentLabel(m.comment)}: ${typeInfo(m.type)?.summary ?? ''}`);
  }
  if (r.labels.stop && !r.labels.terminal.length) out.push(`stop: ${r.labels.reasons.join('; ')}`);
  for (const o of r.chain.outOfOrder) out.push(`order: FORGE:${o.type} appears before FORGE:${o.before}`);
  const failed = r.entries.filter((e) => e.required && !e.ok);
  out.push(r.ok ? `result: PASS (${r.required.length} required)` : `result: FAIL (${failed.map((e) => `${e.tag} ${e.problem}`).join(', ')})`);
  return out;
}
