import { SfError } from '../../errors/index.js';

export interface ReadBodyOptions {
  /** most bytes read */
  limit: number;
  /** keep the first `limit` bytes (an error message) instead of failing with SF_E_LIMIT */
  truncate: boolean;
  /** `GET {url}`, for the message */
  what: string;
}

function tooLarge(what: string, limit: number): SfError {
  const size = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
  return new SfError('SF_E_LIMIT', `${what} returned more than ${size}`, {
    hint: 'this is not a comment page a GitHub-compatible API sends; check --api, or lower --per-page',
    data: { limit },
  });
}

/**
 * Reads a response body as UTF-8, counting bytes as they arrive (`res.text()` buffers whatever the
 * server sends, and a body of gigabytes aborts V8). Refuses a declared content-length over the limit
 * before reading anything.
 */
export async function readBody(res: Response, options: ReadBodyOptions): Promise<string> {
  const { limit, truncate, what } = options;
  const declared = Number(res.headers.get('content-length'));
  if (!truncate && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(what, limit);
  }
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      if (!truncate) throw tooLarge(what, limit);
      chunks.push(value.subarray(0, limit - size));
      break;
    }
    size += value.byteLength;
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
