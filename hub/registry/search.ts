import { SfError } from '../../core/errors/index.js';
import type { LatestSummary, SkitRecord } from '../storage/ports.js';

export interface SearchQuery {
  /** words that must all appear (case-insensitively) in the id, description, tags or skills */
  text?: string;
  owner?: string;
  tag?: string;
}

/** The text a SKIT is found by: id, description, tags, and the names and descriptions of its latest skills. */
function haystack(skit: SkitRecord, latest: LatestSummary | undefined): string {
  const skills = latest ? latest.skills.flatMap((s) => [s.name, s.description]) : [];
  return [skit.id, skit.description, ...skit.tags, ...skills].join('\n').toLowerCase();
}

/** True when `skit` matches every part of `q`. Pure; visibility is decided by the caller. */
export function matchesQuery(skit: SkitRecord, latest: LatestSummary | undefined, q: SearchQuery): boolean {
  if (q.owner && skit.owner.toLowerCase() !== q.owner.toLowerCase()) return false;
  if (q.tag && !skit.tags.some((t) => t.toLowerCase() === q.tag!.toLowerCase())) return false;
  const words = (q.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = haystack(skit, latest);
  return words.every((w) => text.includes(w));
}

const TAG = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * Parses tags (a comma-separated string or a list); undefined when absent. Tags are lowercase,
 * 1-32 letters, digits and hyphens, at most 20. Throws SF_E_USAGE for anything else.
 */
export function parseTags(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  if (list.some((t) => typeof t !== 'string')) {
    throw new SfError('SF_E_USAGE', 'tags must be strings', { hint: 'send tags as a list of strings or one comma-separated string, e.g. ["review", "testing"]' });
  }
  const tags = [...new Set((list as string[]).map((t) => t.trim().toLowerCase()).filter(Boolean))];
  const bad = tags.find((t) => !TAG.test(t));
  if (tags.length > 20 || bad !== undefined) {
    throw new SfError('SF_E_USAGE', bad !== undefined ? `invalid tag "${bad}"` : 'more than 20 tags', {
      hint: 'tags are up to 20 lowercase words of letters, digits and hyphens (1-32 characters)',
    });
  }
  return tags;
}
