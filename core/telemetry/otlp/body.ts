import { gunzipSync, inflateSync } from 'node:zlib';
import { SfError } from '../../errors/index.js';

/**
 * Decompresses an OTLP/HTTP body per its Content-Encoding, capping the decompressed size so a
 * small gzip bomb cannot grow past `maxBytes` (the Collector applies the same cap twice:
 * reliability-anchors.md §3.1). Throws SF_E_LIMIT (413) or SF_E_MEDIA_TYPE (unknown encoding).
 */
export function decompressBody(raw: Uint8Array, contentEncoding: string | undefined, maxBytes: number): Uint8Array {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return raw;
  if (enc !== 'gzip' && enc !== 'deflate') {
    throw new SfError('SF_E_MEDIA_TYPE', `Content-Encoding "${enc}" is not supported`, { hint: 'send the body uncompressed or gzip-compressed' });
  }
  try {
    return (enc === 'gzip' ? gunzipSync : inflateSync)(raw, { maxOutputLength: maxBytes });
  } catch (e) {
    if (e instanceof RangeError || (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new SfError('SF_E_LIMIT', `the decompressed OTLP body exceeds ${maxBytes} bytes`, { hint: 'send smaller batches' });
    }
    throw new SfError('SF_E_OTLP_DECODE', `the ${enc} body could not be decompressed: ${(e as Error).message}`, {
      hint: `send a complete ${enc} stream that matches Content-Encoding, or drop the header and send the body uncompressed`,
      cause: e,
    });
  }
}
