import { SfError } from '../../core/errors/index.js';

/** Bytes of request bodies being received at once, in this process, and the most allowed. */
export interface ReceiveBudget {
  used: number;
  max: number;
}

/**
 * One budget for every body the hub is receiving: a few hundred clients that send most of a
 * 20 MiB body and then stall cannot hold gigabytes between them (they get a retryable 503).
 */
export const RECEIVING: ReceiveBudget = { used: 0, max: 256 * 1024 * 1024 };

/**
 * Reads a request body into memory with a hard cap: a declared Content-Length over `max` is
 * refused before a byte is read, and a body that grows past `max` while streaming (chunked, or
 * a lying Content-Length) is cancelled at once. Either way `tooLarge(max)` is thrown (an SF_E_LIMIT,
 * so a 413) and nothing is kept. A body that would take the process over its receive `budget`
 * is SF_E_UNAVAILABLE (503, retry); one cut off by the client is SF_E_USAGE. Shared by registry
 * uploads and OTLP ingest.
 */
export async function readCappedBody(request: Request, max: number, tooLarge: (max: number) => SfError, budget: ReceiveBudget = RECEIVING): Promise<Buffer> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stop = async (error: SfError): Promise<never> => {
    await reader.cancel().catch(() => undefined); // the client may already be gone; the answer is what matters
    throw error;
  };
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        // the client went away mid-body: its request, not the hub, failed (and nobody reads the answer)
        throw new SfError('SF_E_USAGE', 'the client closed the connection before the whole request body arrived', { hint: 'send the request again', cause: e });
      }
      if (next.done) break;
      const chunk = next.value;
      total += chunk.byteLength;
      budget.used += chunk.byteLength;
      if (total > max) await stop(tooLarge(max));
      if (budget.used > budget.max) {
        await stop(new SfError('SF_E_UNAVAILABLE', `the hub is receiving more than ${budget.max} bytes of request bodies at once`, { hint: 'retry shortly', data: { retryAfterSeconds: 2 } }));
      }
      chunks.push(chunk);
    }
  } finally {
    budget.used -= total;
  }
  return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks, total);
}
