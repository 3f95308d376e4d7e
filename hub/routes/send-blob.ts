import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import { etagMatches, immutableCacheControl, revalidateCacheControl, strongEtag } from '../registry/http-cache.js';

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
 * varying on the credential), 304 on a matching If-None-Match before any bytes are read.
 */
export async function sendBlob(c: Context<HubEnv>, r: BlobResponse): Promise<Response> {
  const etag = strongEtag(r.tag);
  const modified = r.lastModified !== undefined ? Date.parse(r.lastModified) : Number.NaN;
  const headers: Record<string, string> = {
    etag,
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
  headers['content-length'] = String(bytes.length);
  return c.body(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), 200, headers);
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
