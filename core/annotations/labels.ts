import type { Diagnostic } from '../errors/index.js';
import { hasHiddenContent } from './hidden-comment.js';
import { typeInfo } from './tags.js';
import type { Annotation } from './types.js';

/** The reserved `workflow:` labels (spec section 6), in pipeline order. */
export const WORKFLOW_LABELS = [
  'workflow:investigating',
  'workflow:ready-to-build',
  'workflow:building',
  'workflow:in-review',
  'workflow:merged',
  'workflow:invalid',
  'workflow:decomposed',
] as const;
export type WorkflowLabel = (typeof WORKFLOW_LABELS)[number];
export const NEEDS_HUMAN = 'needs-human';

export const LABEL_MEANINGS: Readonly<Record<WorkflowLabel | typeof NEEDS_HUMAN, string>> = {
  'workflow:investigating': 'Investigation in progress',
  'workflow:ready-to-build': 'Investigation complete, build not started',
  'workflow:building': 'Build in progress',
  'workflow:in-review': 'Pull request open, review active',
  'workflow:merged': 'Pull request merged, work item closed',
  'workflow:invalid': 'Closed as invalid',
  'workflow:decomposed': 'Split into sub-issues',
  'needs-human': 'Blocked; human intervention required',
};

/** Processing stops when any of these is set (6, 7.2.5). */
export const TERMINAL_LABELS = ['workflow:merged', 'workflow:invalid', 'workflow:decomposed', NEEDS_HUMAN] as const;

/**
 * Forward moves between stages. `needs-human` can be added from any stage and is removed by a
 * human, so it is not a stage here. in-review -> building is the changes-requested loop.
 */
export const TRANSITIONS: Readonly<Record<WorkflowLabel | 'none', readonly WorkflowLabel[]>> = {
  none: ['workflow:investigating'],
  'workflow:investigating': ['workflow:ready-to-build', 'workflow:invalid', 'workflow:decomposed'],
  'workflow:ready-to-build': ['workflow:building', 'workflow:decomposed'],
  'workflow:building': ['workflow:in-review'],
  'workflow:in-review': ['workflow:merged', 'workflow:building'],
  'workflow:merged': [],
  'workflow:invalid': [],
  'workflow:decomposed': [],
};

const RANK: Record<WorkflowLabel, number> = {
  'workflow:investigating': 1,
  'workflow:ready-to-build': 2,
  'workflow:building': 3,
  'workflow:in-review': 4,
  'workflow:merged': 5,
  'workflow:invalid': 5,
  'workflow:decomposed': 5,
};

const isWorkflow = (l: string): l is WorkflowLabel => (WORKFLOW_LABELS as readonly string[]).includes(l);
export const isTerminal = (l: string): boolean => (TERMINAL_LABELS as readonly string[]).includes(l);

/** True when a work item may move from `from` (null: no stage yet) to `to`. */
export function canTransition(from: WorkflowLabel | null, to: WorkflowLabel): boolean {
  return TRANSITIONS[from ?? 'none'].includes(to);
}

export interface LabelState {
  /** labels as given; null when none were provided */
  labels: string[] | null;
  /** the current stage: the one workflow label, or the most advanced when several are set */
  stage: WorkflowLabel | null;
  /** the stage the annotations show the work has at least reached; null when no lifecycle annotation shows one */
  implied: WorkflowLabel | null;
  /** the annotation that shows `implied` (`comment`: its index, -1 for the issue body), null with it */
  impliedBy: { tag: string; comment?: number; author?: string; line: number } | null;
  terminal: string[];
  /** a consumer must stop processing this work item */
  stop: boolean;
  reasons: string[];
  /** error markers (4.3) in the thread, in order */
  errorMarkers: { type: string; comment?: number; line: number }[];
  diagnostics: Diagnostic[];
}

const BUILD_PHASE = new Set(['CONTRACT', 'CONTEXT', 'ARCHITECT', 'BUILDER']);
const REVIEW_PHASE = new Set(['REVIEWER', 'REVIEW_STARTED']);

/** The implied stage and the annotation that decided it. */
export interface StageEvidence {
  stage: WorkflowLabel;
  by: Annotation;
}

/**
 * in-review, or building when the latest review round sent the work back (the changes-requested
 * loop, `in-review -> building`): a REVIEWER of the round (the review annotations after the last
 * build-phase one) requested changes, or a build-phase annotation follows the last review one.
 * Null when there is no review annotation. `annotations` are in thread order.
 */
function reviewStage(annotations: readonly Annotation[]): StageEvidence | null {
  const lastReview = annotations.findLastIndex((a) => REVIEW_PHASE.has(a.type));
  if (lastReview < 0) return null;
  const lastBuild = annotations.findLastIndex((a) => BUILD_PHASE.has(a.type));
  if (lastBuild > lastReview) return { stage: 'workflow:building', by: annotations[lastBuild] };
  const changes = annotations.slice(lastBuild + 1, lastReview + 1).findLast((a) => a.type === 'REVIEWER' && a.fields?.verdict === 'CHANGES_REQUESTED');
  return changes ? { stage: 'workflow:building', by: changes } : { stage: 'workflow:in-review', by: annotations[lastReview] };
}

/**
 * The stage the annotations prove the work reached (lower bound), from complete lifecycle
 * annotations, and the (latest) annotation that shows it; after a review that requested changes,
 * building again (the changes-requested loop). An annotation with content hidden from readers
 * (hasHiddenContent) is left out: anyone who can comment could post it.
 */
export function stageEvidence(all: readonly Annotation[]): StageEvidence | null {
  const annotations = all.filter((a) => !hasHiddenContent(a));
  const latest = (ok: (a: Annotation) => boolean) => annotations.findLast(ok);
  const done = (type: string) => latest((a) => a.type === type && a.status === 'complete');
  const found = (stage: WorkflowLabel, by: Annotation | undefined): StageEvidence | null => (by ? { stage, by } : null);
  const investigation = done('INVESTIGATOR');
  return (
    (investigation?.fields?.verdict === 'INVALID' ? { stage: 'workflow:invalid', by: investigation } : null) ??
    found('workflow:decomposed', done('DECOMPOSED')) ??
    found('workflow:merged', done('TRAJECTORY')) ??
    reviewStage(annotations) ??
    found('workflow:building', latest((a) => (a.type === 'BUILDER' && a.status === 'complete') || (BUILD_PHASE.has(a.type) && a.type !== 'BUILDER'))) ??
    found('workflow:ready-to-build', investigation) ??
    found('workflow:investigating', latest((a) => a.type === 'INVESTIGATOR'))
  );
}

/** The stage the annotations prove the work reached (see stageEvidence), or null. */
export function impliedStage(annotations: readonly Annotation[]): WorkflowLabel | null {
  return stageEvidence(annotations)?.stage ?? null;
}

/** `FORGE:INVESTIGATOR (comment 2 by alice)`, `FORGE:PRIOR_GIST (issue body)`: what decided, and who wrote it. */
function describe(a: Annotation): string {
  const c = a.comment;
  if (!c) return a.tag;
  const where = c.issueBody ? 'issue body' : `comment ${c.index + 1}`;
  return `${a.tag} (${where}${c.author ? ` by ${c.author}` : ''})`;
}

/**
 * The label state machine: given the labels and the thread's annotations (in thread order, as
 * parseThread returns them), reports the current stage, whether processing must stop (terminal
 * label, or an unhandled error marker), and where the labels disagree with what the annotations show.
 */
export function evaluateLabels(labels: readonly string[] | null, annotations: readonly Annotation[]): LabelState {
  const diagnostics: Diagnostic[] = [];
  const warn = (code: string, message: string, hint?: string) => diagnostics.push({ code, severity: 'warning', message, file: 'labels', ...(hint ? { hint } : {}) });
  const given = labels ? [...labels] : null;
  const workflow = (given ?? []).filter(isWorkflow);
  for (const l of given ?? []) {
    if (l.startsWith('workflow:') && !isWorkflow(l)) warn('FORGE_LABEL_UNKNOWN', `label "${l}" is in the reserved workflow: namespace but is not a protocol label`, `use one of ${WORKFLOW_LABELS.join(', ')}`);
  }
  if (workflow.length > 1) warn('FORGE_LABEL_CONFLICT', `several workflow labels are set: ${workflow.join(', ')}`, 'keep exactly one workflow: label');
  const stage = workflow.reduce<WorkflowLabel | null>((best, l) => (best === null || RANK[l] > RANK[best] ? l : best), null);
  const terminal = (given ?? []).filter(isTerminal);

  const evidence = stageEvidence(annotations);
  const implied = evidence?.stage ?? null;
  if (given && evidence && implied) {
    // a move the transition table allows from the implied stage (in-review -> building) is not behind
    const behind = stage === null || (RANK[stage] < RANK[implied] && !canTransition(implied, stage));
    const otherEnd = stage !== null && RANK[stage] === 5 && RANK[implied] === 5 && stage !== implied;
    if (behind || otherEnd) warn('FORGE_LABEL_BEHIND', `labels say ${stage ?? '(no workflow label)'} but ${describe(evidence.by)} shows the work reached ${implied}`, `set ${implied}`);
  }

  // annotations are in thread order (parseThread): a marker after the last lifecycle annotation is unhandled
  const lastLifecycle = annotations.findLastIndex((a) => a.kind === 'lifecycle');
  const markers = annotations.filter((a) => typeInfo(a.type)?.error);
  const unhandled = annotations.filter((a, i) => typeInfo(a.type)?.error && i > lastLifecycle);
  const reasons: string[] = terminal.map((l) => `terminal label ${l}`);
  if (unhandled.length && !terminal.includes(NEEDS_HUMAN)) {
    reasons.push(`error marker ${unhandled.map((m) => m.tag).join(', ')} with no later lifecycle annotation`);
    if (given) warn('FORGE_MARKER_UNHANDLED', `${unhandled[unhandled.length - 1].tag} says automated processing stopped, but ${NEEDS_HUMAN} is not set`, `add the ${NEEDS_HUMAN} label`);
  }
  return {
    labels: given,
    stage,
    implied,
    impliedBy: evidence ? { tag: evidence.by.tag, ...(evidence.by.comment ? { comment: evidence.by.comment.index } : {}), ...(evidence.by.comment?.author ? { author: evidence.by.comment.author } : {}), line: evidence.by.line } : null,
    terminal,
    stop: reasons.length > 0,
    reasons,
    errorMarkers: markers.map((m) => ({ type: m.type, ...(m.comment ? { comment: m.comment.index } : {}), line: m.line })),
    diagnostics,
  };
}
