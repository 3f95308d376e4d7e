import type { Diagnostic } from '../errors/index.js';
import type { AnnotationForm, AnnotationKind } from './tags.js';

/**
 * complete: the completion sentinel is present (or, for an inline value or marker, the tag itself);
 * partial: the producer marked it partial (3.3); interrupted: neither (3.3: treat as interrupted).
 */
export type AnnotationStatus = 'complete' | 'partial' | 'interrupted';

/**
 * How completeness was decided. `sentinel`: the type's completion sentinel was found.
 * `time-limited`: the partial sentinel that spec 4.1 lists as a time-limited completion sentinel
 * (CONTEXT, ARCHITECT): the run stopped at its time budget, and what it wrote is final. `structure`:
 * the spec states no sentinel for this type (CONTRACT, REVIEWER, TRAJECTORY), none was written, and
 * the annotation has a body that was neither cut off by a truncated tag nor ended by another
 * annotation's sentinel (template fields do not count). `presence`: inline values and markers
 * carry no body; the tag is the signal.
 */
export type CompletionEvidence = 'sentinel' | 'time-limited' | 'structure' | 'presence';

/** Where an annotation came from when it was read out of a comment thread. */
export interface CommentRef {
  /** 0-based position of the comment in the input (`comments[index]`), whatever its chronological place; -1 for the issue body */
  index: number;
  /** the issue's own body (description), which comes before its comments */
  issueBody?: true;
  id?: string | number;
  author?: string;
  createdAt?: string;
  url?: string;
}

/** One annotation found in a comment body. */
export interface Annotation {
  /** `FORGE:{TYPE}` */
  tag: string;
  /** TYPE without the `FORGE:` prefix */
  type: string;
  /** `unknown` for types this implementation does not recognize (skipped, never an error: 7.2.4) */
  kind: AnnotationKind | 'unknown';
  form: AnnotationForm;
  status: AnnotationStatus;
  completion: CompletionEvidence | null;
  /** the sentinel line as written, when one closed the annotation */
  sentinel: string | null;
  /** inline form only: the value between `: ` and ` -->` (3.4) */
  value?: string;
  /** block form: the Markdown between the opening tag and the sentinel (or end), blank edges trimmed */
  body: string;
  /** structured fields of a known block type (see docs/forge-annotations.md for each type's keys) */
  fields?: Record<string, unknown>;
  /** 1-based line of the opening tag within the comment body */
  line: number;
  /** 1-based last line that belongs to the annotation (the sentinel line when there is one) */
  endLine: number;
  comment?: CommentRef;
  diagnostics: Diagnostic[];
}

/** Result of parsing one body or a whole thread. */
export interface ParseResult {
  annotations: Annotation[];
  /** findings outside any annotation: orphan sentinels, malformed tags, unusable comments */
  diagnostics: Diagnostic[];
}

/** A comment reduced to what the protocol needs, whatever platform it came from. */
export interface ThreadComment {
  /** 0-based position in the input, kept through chronological ordering; -1 for the issue body */
  index: number;
  /** the issue's own body (GitHub/Gitea `body`, GitLab `description`) */
  issueBody?: true;
  body: string;
  id?: string | number;
  author?: string;
  createdAt?: string;
  url?: string;
}
