/**
 * Reads a fetch Response body into memory with a byte cap enforced while it streams (`res.text()`
 * or `arrayBuffer()` buffers whatever a server sends). A declared Content-Length over the cap is
 * refused before a byte is read. Past the cap the body is cancelled and `tooLarge()` thrown, or,
 * with `truncate`, the first `max` bytes are kept (an error message worth showing in part).
 */
export async function readCappedResponse(res: Response, max: number, tooLarge: () => Error, truncate = false): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (!truncate && Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > max) {
      await reader.cancel().catch(() => undefined);
      if (!truncate) throw tooLarge();
      chunks.push(value.subarray(0, max - total));
      break;
    }
    total += value.byteLength;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
