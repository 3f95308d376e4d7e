import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';

const MAX_JSON_BYTES = 64 * 1024;

/** Reads a small JSON object body, with a clear error for anything else. */
export async function readJson<T extends object>(c: Context): Promise<T> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_JSON_BYTES) throw new SfError('SF_E_LIMIT', `JSON body over ${MAX_JSON_BYTES} bytes`, { hint: `send a smaller JSON object (at most ${MAX_JSON_BYTES} bytes)` });
  if (text.trim() === '') return {} as T;
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as T;
  } catch {
    throw new SfError('SF_E_USAGE', 'the request body is not a JSON object', { hint: 'send Content-Type: application/json with an object body' });
  }
}
