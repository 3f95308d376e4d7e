/**
 * FORGE annotation protocol v1.0 (docs/forge-annotations.md): parse comment bodies and threads,
 * render annotations from structured data, check conformance, the label state machine, the
 * context chain, a GitHub-compatible thread fetcher, and the `FORGE:SKIT_EVIDENCE` extension.
 */
export * from './enums.js';
export { ANNOTATION_TYPES, CONFORMANCE_REQUIRED, CONTEXT_CHAIN, completionSentinel, inlineTag, isProtocolSentinel, normalizeTypeName, openingTag, partialSentinel, sentinelRule, sentinelTag, typeInfo } from './tags.js';
export type { AnnotationForm, AnnotationKind, SentinelRule, TypeInfo } from './tags.js';
export type { Annotation, AnnotationStatus, CommentRef, CompletionEvidence, ParseResult, ThreadComment } from './types.js';
export { parseBody, type ParseOptions } from './parse-body.js';
export { normalizeComments, normalizeLabels, parseThread, readThreadDocument, readThreadInput, type Platform, type ThreadInput } from './thread.js';
export { renderAnnotation, type RenderOptions } from './render.js';
export { TEMPLATES, templateFor } from './templates/index.js';
export { canTransition, evaluateLabels, impliedStage, isTerminal, LABEL_MEANINGS, NEEDS_HUMAN, stageEvidence, TERMINAL_LABELS, TRANSITIONS, WORKFLOW_LABELS, type LabelState, type StageEvidence, type WorkflowLabel } from './labels.js';
export { hasHiddenContent } from './hidden-comment.js';
export { checkChain, type ChainEntry, type ChainReport } from './chain.js';
export { formatConformanceReport, parseRequireList, runConformanceCheck, type CheckEntry, type ConformanceReport } from './check.js';
export { fetchIssueThread, type FetchedThread, type FetchThreadOptions } from './fetch/issue-thread.js';
export { FETCH_PLATFORMS, detectFetchPlatform, type FetchPlatform } from './fetch/platform.js';
export * from './skit-evidence/index.js';
