import { SfError } from '../../core/errors/index.js';

function tooLarge(max: number): SfError {
  return new SfError('SF_E_LIMIT', `the upload is larger than the limit of ${max} bytes`, {
    hint: 'make the SKIT smaller (or ask the hub operator to raise maxUploadBytes)',
    data: { limit: 'maxUploadBytes', maxBytes: max },
  });
}

/**
 * Reads a request body into memory with a hard cap: a declared Content-Length over `max` is
 * refused before a byte is read, and a body that grows past `max` while streaming (chunked, or
 * a lying Content-Length) is cancelled at once. Both are SF_E_LIMIT (413); nothing is kept.
 */
export async function readCappedBody(request: Request, max: number): Promise<Buffer> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined); // the connection may already be gone; the 413 is what matters
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
