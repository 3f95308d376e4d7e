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

/** Bytes `first` to `last` of a representation, both included. */
export interface ByteRange {
  first: number;
  last: number;
}

/**
 * The one byte range a Range header asks for out of `size` bytes (RFC 9110 §14.1.2): `first-last`
 * (last clamped to the end), `first-` or `-suffix`. 'unsatisfiable' (a 416) when it starts past the
 * end or is an empty suffix; undefined when the header is to be ignored and the whole representation
 * sent, as the RFC allows: absent, malformed, another unit, or several ranges (no multipart answers).
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { first: Math.max(0, size - suffix), last: size - 1 };
  }
  const first = Number(m[1]);
  const last = m[2] === '' ? Number.POSITIVE_INFINITY : Number(m[2]);
  if (last < first) return undefined; // an invalid range-spec, not an unsatisfiable one
  return first >= size ? 'unsatisfiable' : { first, last: Math.min(last, size - 1) };
}

/**
 * RFC 9110 §13.1.5: true when If-Range is absent or names the current representation, by its
 * strong entity tag (strong comparison: a weak tag never matches) or exactly by its Last-Modified
 * date (strong here: the artifacts behind it never change). When false, Range is ignored.
 */
export function ifRangeMatches(ifRange: string | undefined, etag: string, lastModified: string | undefined): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag && !etag.startsWith('W/');
  const date = Date.parse(value);
  return lastModified !== undefined && Number.isFinite(date) && date === Date.parse(lastModified);
}
