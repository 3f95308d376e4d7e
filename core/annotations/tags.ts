/**
 * The table of annotation types, their form and their sentinels (spec sections 3 and 4), plus the
 * `FORGE:SKIT_EVIDENCE` extension. Everything that needs to know "what closes a BUILDER" asks here.
 */

export type AnnotationKind = 'lifecycle' | 'cross-artifact' | 'control' | 'extension';
/** block: opening tag + Markdown body; inline: `<!-- FORGE:{TYPE}: {value} -->`; marker: tag only. */
export type AnnotationForm = 'block' | 'inline' | 'marker';

export interface SentinelRule {
  /** sentinel names accepted as completion (`<!-- {name}:COMPLETE -->`); the first is canonical */
  complete: readonly string[];
  /** true when the spec (or the extension) states a completion sentinel; only then does render emit it */
  stated: boolean;
  /** sentinel names accepted as partial (`<!-- {name}:PARTIAL -->`); the first is what render emits */
  partial: readonly string[];
  /**
   * the partial sentinel is a completion sentinel "(time-limited)" (spec 4.1, CONTEXT and ARCHITECT):
   * the run ended on its time budget and what it wrote is final, so it reads as complete
   */
  timeLimited?: true;
}

export interface TypeInfo {
  type: string;
  kind: AnnotationKind;
  form: AnnotationForm;
  /** one line from the spec: who writes it / what it means */
  summary: string;
  /** block types only */
  sentinels?: SentinelRule;
  /** error markers mean automated processing stopped and a human is needed (4.3) */
  error?: boolean;
}

const block = (type: string, kind: AnnotationKind, summary: string, sentinels: SentinelRule): TypeInfo => ({ type, kind, form: 'block', summary, sentinels });
const forge = (type: string) => `FORGE:${type}`;
/**
 * The generic sentinel names of 3.2/3.3 for a type that states none of its own for a state: the
 * bare `<!-- {TYPE}:COMPLETE -->` as 3.2 writes it, and `<!-- FORGE:{TYPE}:COMPLETE -->` as the
 * stated sentinels of section 4 spell it. The first (the `FORGE:` form) is what render emits.
 */
const generic = (type: string): readonly string[] => [forge(type), type];
/** Sentinels as the spec states them for both states: `<!-- FORGE:{TYPE}:COMPLETE -->` / `:PARTIAL`. */
const stated = (type: string): SentinelRule => ({ complete: [forge(type)], stated: true, partial: [forge(type)] });
/** The spec states the completion sentinel only (DECOMPOSED, BUILDER): the partial one is generic (3.3). */
const statedComplete = (type: string): SentinelRule => ({ complete: [forge(type)], stated: true, partial: generic(type) });
/**
 * Types for which the spec states no sentinel (CONTRACT, REVIEWER, TRAJECTORY — its own worked
 * example posts TRAJECTORY without one), and unknown types: the generic 3.2/3.3 forms are accepted.
 */
const unstated = (type: string): SentinelRule => ({ complete: generic(type), stated: false, partial: generic(type) });

/** Every type this implementation recognizes, keyed by TYPE (without the `FORGE:` prefix). */
export const ANNOTATION_TYPES: Readonly<Record<string, TypeInfo>> = Object.freeze({
  INVESTIGATOR: block('INVESTIGATOR', 'lifecycle', 'Investigation outcome: verdict, root cause, recommendation', {
    complete: ['INVESTIGATION'],
    stated: true,
    // the spec names no INVESTIGATOR partial sentinel; 3.3's form with the domain name is emitted, the
    // generic forms with the type name (`INVESTIGATOR:PARTIAL`, `FORGE:INVESTIGATOR:PARTIAL`) accepted
    partial: ['INVESTIGATION', ...generic('INVESTIGATOR')],
  }),
  DECOMPOSED: block('DECOMPOSED', 'lifecycle', 'Parent issue split into sub-issues', statedComplete('DECOMPOSED')),
  CONTRACT: block('CONTRACT', 'lifecycle', 'Builder contract: scope agreed before writing code', unstated('CONTRACT')),
  // 4.1 lists `<!-- FORGE:CONTEXT:PARTIAL -->` and `:ARCHITECT:PARTIAL` among their completion sentinels, "(time-limited)"
  CONTEXT: block('CONTEXT', 'lifecycle', 'Institutional memory gathered before implementation', { ...stated('CONTEXT'), timeLimited: true }),
  ARCHITECT: block('ARCHITECT', 'lifecycle', 'Ordered implementation plan over all affected paths', { ...stated('ARCHITECT'), timeLimited: true }),
  BUILDER: block('BUILDER', 'lifecycle', 'Implementation handoff to review: branch, commits, changes', statedComplete('BUILDER')),
  REVIEWER: block('REVIEWER', 'lifecycle', 'Domain review verdict and findings (on the pull request)', unstated('REVIEWER')),
  TRAJECTORY: block('TRAJECTORY', 'lifecycle', 'Audit trail of a completed pipeline run', unstated('TRAJECTORY')),
  KNOWLEDGE_GIST: { type: 'KNOWLEDGE_GIST', kind: 'cross-artifact', form: 'inline', summary: 'Link to the full investigation findings' },
  MILESTONE_INDEX: { type: 'MILESTONE_INDEX', kind: 'cross-artifact', form: 'inline', summary: 'Link to the milestone index of knowledge links' },
  PRIOR_GIST: { type: 'PRIOR_GIST', kind: 'cross-artifact', form: 'inline', summary: "Link to the parent issue's knowledge artifact" },
  REVIEW_STARTED: { type: 'REVIEW_STARTED', kind: 'control', form: 'marker', summary: 'The review phase has been invoked for this issue' },
  ANCESTRY_FAILED: { type: 'ANCESTRY_FAILED', kind: 'control', form: 'marker', summary: 'A branch ancestry check failed (unexpected merge commits)', error: true },
  GATE_FAILED: { type: 'GATE_FAILED', kind: 'control', form: 'marker', summary: 'A quality gate failed after its retry budget', error: true },
  PUSH_BLOCKED: { type: 'PUSH_BLOCKED', kind: 'control', form: 'marker', summary: 'A branch push was blocked by platform policy', error: true },
  PUSH_FAILED: { type: 'PUSH_FAILED', kind: 'control', form: 'marker', summary: 'A branch push failed after retry', error: true },
  SKIT_EVIDENCE: block('SKIT_EVIDENCE', 'extension', 'Forge extension: SKIT releases and skills installed and active during the work', stated('SKIT_EVIDENCE')),
});

/** The lifecycle context chain in spec order (section 5). */
export const CONTEXT_CHAIN = ['INVESTIGATOR', 'DECOMPOSED', 'CONTRACT', 'CONTEXT', 'ARCHITECT', 'BUILDER', 'REVIEWER', 'TRAJECTORY'] as const;

/** The annotation-presence list of the spec's conformance check (7.3). */
export const CONFORMANCE_REQUIRED = ['INVESTIGATOR', 'CONTRACT', 'CONTEXT', 'ARCHITECT', 'BUILDER', 'TRAJECTORY'] as const;

/** Type info for `type`, or undefined for a type this implementation does not know. */
export function typeInfo(type: string): TypeInfo | undefined {
  return Object.prototype.hasOwnProperty.call(ANNOTATION_TYPES, type) ? ANNOTATION_TYPES[type] : undefined;
}

/** Sentinel rule for a block type; unknown types get the generic 3.2/3.3 forms. */
export function sentinelRule(type: string): SentinelRule {
  return typeInfo(type)?.sentinels ?? unstated(type);
}

/**
 * True when `<!-- {name}:COMPLETE|PARTIAL -->` is protocol, not ordinary text: `FORGE:`-prefixed,
 * a bare sentinel the protocol uses (INVESTIGATION), or a type name (`INVESTIGATOR:COMPLETE`, a
 * producer mistake worth reporting).
 */
export function isProtocolSentinel(name: string): boolean {
  if (name.startsWith('FORGE:') || typeInfo(name)) return true;
  return Object.values(ANNOTATION_TYPES).some((t) => t.sentinels?.complete.includes(name) || t.sentinels?.partial.includes(name));
}

/** `<!-- FORGE:{TYPE} -->` */
export function openingTag(type: string): string {
  return `<!-- FORGE:${type} -->`;
}

/** `<!-- FORGE:{TYPE}: {value} -->` */
export function inlineTag(type: string, value: string): string {
  return `<!-- FORGE:${type}: ${value} -->`;
}

/** `<!-- {name}:COMPLETE -->` or `<!-- {name}:PARTIAL -->` */
export function sentinelTag(name: string, which: 'COMPLETE' | 'PARTIAL'): string {
  return `<!-- ${name}:${which} -->`;
}

/** The completion sentinel a producer emits for `type`, or null when the spec states none. */
export function completionSentinel(type: string): string | null {
  const rule = sentinelRule(type);
  return rule.stated ? sentinelTag(rule.complete[0], 'COMPLETE') : null;
}

/** The partial sentinel a producer emits for `type`. */
export function partialSentinel(type: string): string {
  return sentinelTag(sentinelRule(type).partial[0], 'PARTIAL');
}

/** Accepts `INVESTIGATOR`, `FORGE:INVESTIGATOR` or `forge:investigator`; returns the TYPE or null. */
export function normalizeTypeName(name: string): string | null {
  const bare = name.trim().replace(/^FORGE:/i, '').toUpperCase();
  return /^[A-Z][A-Z0-9_]*$/.test(bare) ? bare : null;
}
