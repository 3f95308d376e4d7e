import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { HubEnv } from '../auth/principal.js';
import { etagMatches, immutableCacheControl, revalidateCacheControl, strongEtag } from '../registry/http-cache.js';

export interface BlobResponse {
  sha256: string;
  /** the entity tag without quotes, e.g. the bundle hash `sha256:<hex>` */
  tag: string;
  isPrivate: boolean;
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
  const headers: Record<string, string> = {
    etag,
    'cache-control': r.mutable ? revalidateCacheControl(r.isPrivate) : immutableCacheControl(r.isPrivate),
    'x-content-type-options': 'nosniff',
    ...(r.isPrivate ? { vary: 'authorization' } : {}),
    ...r.headers,
  };
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
  const bytes = await c.get('registry').readBlob(r.sha256);
  if (!bytes) throw new SfError('SF_E_INTERNAL', 'release bytes are missing from the blob store');
  if (r.filename) headers['content-disposition'] = `attachment; filename="${r.filename.replace(/[^A-Za-z0-9._@-]/g, '_')}"`;
  headers['content-type'] = r.contentType;
  headers['content-length'] = String(bytes.length);
  return c.body(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), 200, headers);
}
