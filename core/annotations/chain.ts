import type { Diagnostic } from '../errors/index.js';
import { CONTEXT_CHAIN } from './tags.js';
import type { Annotation, AnnotationStatus, CompletionEvidence } from './types.js';

export interface ChainEntry {
  type: string;
  tag: string;
  count: number;
  /** status of the latest occurrence (a re-run supersedes an earlier partial one) */
  status: AnnotationStatus | null;
  completion: CompletionEvidence | null;
  /** error-level diagnostics of the latest occurrence */
  errors: number;
  first?: { comment?: number; line: number };
}

export interface ChainReport {
  /** every chain type, plus any expected type outside the chain, in chain order */
  entries: ChainEntry[];
  /** `type` first appears before `before`, which the chain puts earlier */
  outOfOrder: { type: string; before: string }[];
  /** expected types that are absent */
  missing: string[];
  /** chain stages absent between the first and last present ones (informational: producers may emit any subset) */
  gaps: string[];
  diagnostics: Diagnostic[];
}

/** Chain stages that are conditional or live elsewhere, so their absence is not a gap. */
const OPTIONAL_STAGES = new Set(['DECOMPOSED', 'REVIEWER']);

/**
 * Context-chain check (section 5): which annotations are present and complete, which appear out
 * of chain order (by first occurrence), which expected ones are missing. `annotations` are in
 * thread order, as parseThread returns them (a comment's `index` is its place in the input, which
 * need not be chronological).
 */
export function checkChain(annotations: readonly Annotation[], expected: readonly string[] = []): ChainReport {
  const types = [...CONTEXT_CHAIN, ...expected.filter((t) => !(CONTEXT_CHAIN as readonly string[]).includes(t))];
  const entries = types.map((type): ChainEntry => {
    const found = annotations.filter((a) => a.type === type);
    const latest = found.at(-1);
    return {
      type,
      tag: `FORGE:${type}`,
      count: found.length,
      status: latest?.status ?? null,
      completion: latest?.completion ?? null,
      errors: latest ? latest.diagnostics.filter((d) => d.severity === 'error').length : 0,
      ...(found[0] ? { first: { ...(found[0].comment ? { comment: found[0].comment.index } : {}), line: found[0].line } } : {}),
    };
  });
  const firstOrder = new Map<string, number>();
  annotations.forEach((a, i) => {
    if (!firstOrder.has(a.type)) firstOrder.set(a.type, i);
  });

  const outOfOrder: ChainReport['outOfOrder'] = [];
  const present = CONTEXT_CHAIN.filter((t) => firstOrder.has(t));
  present.forEach((later, i) => {
    for (const earlier of present.slice(0, i)) {
      if (firstOrder.get(later)! < firstOrder.get(earlier)!) outOfOrder.push({ type: later, before: earlier });
    }
  });
  const missing = expected.filter((t) => !annotations.some((a) => a.type === t));
  const firstIdx = CONTEXT_CHAIN.findIndex((t) => firstOrder.has(t));
  const lastIdx = CONTEXT_CHAIN.length - 1 - [...CONTEXT_CHAIN].reverse().findIndex((t) => firstOrder.has(t));
  const gaps = firstIdx < 0 ? [] : CONTEXT_CHAIN.slice(firstIdx, lastIdx + 1).filter((t) => !firstOrder.has(t) && !OPTIONAL_STAGES.has(t));
  const diagnostics: Diagnostic[] = outOfOrder.map((o) => ({
    code: 'FORGE_CHAIN_ORDER',
    severity: 'warning',
    file: 'thread',
    message: `FORGE:${o.type} first appears before FORGE:${o.before}, which precedes it in the context chain`,
    hint: 'each stage reads the outputs of the stages before it (section 5)',
  }));
  return { entries, outOfOrder, missing, gaps, diagnostics };
}
