import type { Annotation, ThreadComment } from '../../../core/annotations/index.js';
import { sanitize } from '../../output/style.js';

const pick = (f: Record<string, unknown>, key: string) => (f[key] === undefined ? undefined : String(f[key]));

/** One line of the most useful fields of an annotation, for the human output of parse and fetch. */
export function headline(a: Annotation): string {
  if (a.value !== undefined) return a.value;
  const f = a.fields ?? {};
  const parts: (string | undefined)[] = [];
  switch (a.type) {
    case 'INVESTIGATOR': {
      const d = f.decomposition as { assessment?: string } | undefined;
      parts.push(pick(f, 'verdict'), pick(f, 'confidence') && `confidence ${pick(f, 'confidence')}`, pick(f, 'severity') && `severity ${pick(f, 'severity')}`, pick(f, 'taskType'), d?.assessment && `decompose ${d.assessment}`);
      break;
    }
    case 'BUILDER':
      parts.push(pick(f, 'branch') && `branch ${pick(f, 'branch')}`, Array.isArray(f.commits) ? `commits ${f.commits.join(', ')}` : undefined, pick(f, 'filesChanged') && `${pick(f, 'filesChanged')} files`);
      break;
    case 'REVIEWER':
      parts.push(pick(f, 'agentType'), pick(f, 'verdict'), Array.isArray(f.findings) ? `${f.findings.length} findings` : undefined);
      break;
    case 'TRAJECTORY':
      parts.push(pick(f, 'number') && `#${pick(f, 'number')}`, pick(f, 'completed') && `completed ${pick(f, 'completed')}`);
      break;
    case 'DECOMPOSED':
      parts.push(Array.isArray(f.subIssues) ? `${f.subIssues.length} sub-issues` : undefined);
      break;
    case 'CONTRACT':
      parts.push(pick(f, 'taskType'), Array.isArray(f.deliverables) ? `${f.deliverables.length} deliverables` : undefined);
      break;
    case 'SKIT_EVIDENCE':
      parts.push(Array.isArray(f.releases) ? `${f.releases.length} releases` : undefined, Array.isArray(f.skills) ? `${f.skills.length} skills` : undefined, f.active === null ? 'activity not recorded' : Array.isArray(f.active) ? `${f.active.length} active` : undefined);
      break;
    default:
      parts.push(pick(f, 'number') && `#${pick(f, 'number')}`);
  }
  return sanitize(parts.filter(Boolean).join(' · '));
}

/** `complete`, `complete (time-limited)`, `complete (structure)`, `partial`, `interrupted`: how the annotation ended. */
export function statusText(a: Annotation): string {
  return a.status + (a.completion && a.completion !== 'sentinel' ? ` (${a.completion})` : '');
}

/** The comment (or issue body) and lines of an annotation. */
export function where(a: Annotation): string {
  const c = a.comment ? `${a.comment.issueBody ? 'issue body' : `comment ${a.comment.index + 1}`}${a.comment.author ? ` by ${sanitize(a.comment.author)}` : ''}, ` : '';
  return `${c}line${a.endLine > a.line ? `s ${a.line}-${a.endLine}` : ` ${a.line}`}`;
}

/** `3 comments`, `1 comment and the issue body`: what a thread read holds. */
export function threadSize(comments: readonly ThreadComment[]): string {
  const n = comments.filter((c) => !c.issueBody).length;
  return `${n} comment${n === 1 ? '' : 's'}${n < comments.length ? ' and the issue body' : ''}`;
}
