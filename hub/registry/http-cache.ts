/**
 * Conditional and cache headers for registry responses. Versioned artifacts are immutable, so
 * their ETag is a content hash and they may be cached for a year; a private SKIT's artifacts may
 * only be kept by the requesting client.
 */

export const YEAR_SECONDS = 31_536_000;

/** `"<tag>"`: a strong entity tag. */
export const strongEtag = (tag: string) => `"${tag}"`;

/** True when an If-None-Match header value matches `etag` (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => {
    const t = candidate.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}

/** Cache-Control of an immutable artifact. */
export function immutableCacheControl(isPrivate: boolean): string {
  return `${isPrivate ? 'private' : 'public'}, max-age=${YEAR_SECONDS}, immutable`;
}

/** Cache-Control of a document that changes (indexes): revalidate every time. */
export function revalidateCacheControl(isPrivate: boolean): string {
  return `${isPrivate ? 'private' : 'public'}, no-cache`;
}

/** Content-Type for a served file, by extension; unknown types are octet-stream (never sniffed). */
export function contentTypeOf(path: string): string {
  const lower = path.toLowerCase();
  if (lower.endsWith('.md') || lower.endsWith('.markdown')) return 'text/markdown; charset=utf-8';
  if (lower.endsWith('.txt')) return 'text/plain; charset=utf-8';
  if (lower.endsWith('.json')) return 'application/json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'text/yaml; charset=utf-8';
  return 'application/octet-stream';
}
