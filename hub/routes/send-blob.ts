import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import { byteRangeOf, etagMatches, ifRangeMatches, immutableCacheControl, revalidateCacheControl, strongEtag, type ByteRange } from '../registry/http-cache.js';

export interface BlobResponse {
  sha256: string;
  /** the entity tag without quotes, e.g. the bundle hash `sha256:<hex>` */
  tag: string;
  isPrivate: boolean;
  /** only its managers may fetch it now (quarantined): no cache keeps it */
  noStore?: boolean;
  /** when the artifact was published (ISO 8601): Last-Modified, and If-Modified-Since answers */
  lastModified?: string;
  contentType: string;
  /** download file name (Content-Disposition: attachment) */
  filename?: string;
  /** the URL names a moving target (`latest`): revalidate instead of caching for a year */
  mutable?: boolean;
  /** extra headers, e.g. a sandboxing CSP for user files */
  headers?: Record<string, string>;
}

/**
 * Serves an immutable blob: strong ETag, year-long immutable caching (private for private SKITs,
 * varying on the credential), 304 on a matching If-None-Match before any bytes are read, and one
 * byte range of it (206, or 416 past the end) so an interrupted download resumes.
 */
export async function sendBlob(c: Context<HubEnv>, r: BlobResponse): Promise<Response> {
  const etag = strongEtag(r.tag);
  const modified = r.lastModified !== undefined ? Date.parse(r.lastModified) : Number.NaN;
  const headers: Record<string, string> = {
    etag,
    'accept-ranges': 'bytes',
    'cache-control': r.noStore ? 'private, no-store' : r.mutable ? revalidateCacheControl(r.isPrivate) : immutableCacheControl(r.isPrivate),
    'x-content-type-options': 'nosniff',
    ...(r.isPrivate ? { vary: 'authorization' } : {}),
    ...(Number.isFinite(modified) ? { 'last-modified': new Date(modified).toUTCString() } : {}),
    ...r.headers,
  };
  if (notModified(c.req.header('if-none-match'), c.req.header('if-modified-since'), etag, modified)) return c.body(null, 304, headers);
  const bytes = await c.get('registry').readBlob(r.sha256);
  if (!bytes) throw new SfError('SF_E_INTERNAL', 'release bytes are missing from the blob store');
  if (r.filename) headers['content-disposition'] = `attachment; filename="${r.filename.replace(/[^A-Za-z0-9._@-]/g, '_')}"`;
  headers['content-type'] = r.contentType;
  const range = requestedRange(c, bytes.length, etag, headers['last-modified']);
  const { first, last } = range ?? { first: 0, last: bytes.length - 1 };
  if (range) headers['content-range'] = `bytes ${first}-${last}/${bytes.length}`;
  headers['content-length'] = String(last - first + 1);
  return c.body(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset + first, last - first + 1), range ? 206 : 200, headers);
}

/**
 * The byte range to send, RFC 9110 §13.2.2 and §14.2: only a GET has one (a HEAD answers like the
 * full GET), and only when If-Range, if sent, still names this blob. Throws the 416.
 */
function requestedRange(c: Context<HubEnv>, size: number, etag: string, lastModified: string | undefined): ByteRange | undefined {
  const header = c.req.header('range');
  if (c.req.method !== 'GET' || header === undefined || !ifRangeMatches(c.req.header('if-range'), etag, lastModified)) return undefined;
  const range = byteRangeOf(header, size);
  if (range !== 'unsatisfiable') return range;
  throw new SfError('SF_E_USAGE', `the requested range (Range: ${header.slice(0, 100)}) starts past the end of ${c.req.path}, which is ${size} bytes`, {
    hint: size > 0 ? `ask for bytes 0 to ${size - 1}, or GET it without Range` : 'the file is empty: GET it without Range',
    data: { size, contentRange: `bytes */${size}` },
  });
}

/**
 * RFC 9110 §13.2.2: If-None-Match decides when present; otherwise If-Modified-Since does, against
 * the publication time (second precision, as HTTP dates have).
 */
function notModified(ifNoneMatch: string | undefined, ifModifiedSince: string | undefined, etag: string, modifiedMs: number): boolean {
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, etag);
  if (ifModifiedSince === undefined || !Number.isFinite(modifiedMs)) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(modifiedMs / 1000) * 1000 <= since;
}
