import type { SfError } from '../../core/errors/index.js';

/**
 * Reads a request body into memory with a hard cap: a declared Content-Length over `max` is
 * refused before a byte is read, and a body that grows past `max` while streaming (chunked, or
 * a lying Content-Length) is cancelled at once. Either way `tooLarge(max)` is thrown (an SF_E_LIMIT,
 * so a 413) and nothing is kept. Shared by registry uploads and OTLP ingest.
 */
export async function readCappedBody(request: Request, max: number, tooLarge: (max: number) => SfError): Promise<Buffer> {
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
      await reader.cancel().catch(() => undefined); // the client may already be gone; the 413 is what matters
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks, total);
}
