import { gunzipSync, inflateSync } from 'node:zlib';
import { SfError } from '../../errors/index.js';

/**
 * Decompresses an OTLP/HTTP body per its Content-Encoding, capping the decompressed size so a
 * small gzip bomb cannot grow past `maxBytes` (the Collector applies the same cap twice:
 * reliability-anchors.md §3.1). Throws SF_E_LIMIT (413) or SF_E_MEDIA_TYPE (unknown encoding).
 */
/** The content codings an OTLP body may use (the Accept-Encoding of a 415 for another one). */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, identity';

export function decompressBody(raw: Uint8Array, contentEncoding: string | undefined, maxBytes: number): Uint8Array {
  // RFC 9110 §8.4.1.3: x-gzip is gzip
  const given = (contentEncoding ?? '').trim().toLowerCase();
  const enc = given === 'x-gzip' ? 'gzip' : given;
  if (enc === '' || enc === 'identity') return raw;
  if (enc !== 'gzip' && enc !== 'deflate') {
    throw new SfError('SF_E_MEDIA_TYPE', `Content-Encoding "${given}" is not supported`, {
      hint: 'send the body uncompressed, gzip- or deflate-compressed',
      data: { acceptEncoding: ACCEPTED_ENCODINGS },
    });
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
