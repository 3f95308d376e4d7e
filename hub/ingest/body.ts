import { SfError } from '../../core/errors/index.js';

function tooLarge(max: number): SfError {
  return new SfError('SF_E_LIMIT', `the OTLP request body is larger than the ${max}-byte limit`, {
    hint: 'export smaller batches (e.g. lower the exporter batch size)',
    data: { maxBytes: max },
  });
}

/**
 * Reads an OTLP request body with a hard cap on raw bytes: a declared Content-Length over the cap
 * is refused before reading, and a chunked or lying body is cancelled as soon as it passes the cap
 * (the decompressed size is capped separately while inflating).
 */
export async function readOtlpBody(request: Request, max: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
  if (!request.body) return new Uint8Array(0);
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
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}
