import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { readCappedBody } from '../http/capped-body.js';

const MAX_JSON_BYTES = 64 * 1024;

const tooLarge = (max: number) => new SfError('SF_E_LIMIT', `JSON body over ${max} bytes`, { hint: `send a smaller JSON object (at most ${max} bytes)` });

/**
 * Reads a small JSON object body, with a clear error for anything else. The body is capped while
 * it arrives: a 500 MB "JSON" body is refused after 64 KiB, never held in memory.
 */
export async function readJson<T extends object>(c: Context): Promise<T> {
  const text = (await readCappedBody(c.req.raw, MAX_JSON_BYTES, tooLarge)).toString('utf8');
  if (text.trim() === '') return {} as T;
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as T;
  } catch {
    throw new SfError('SF_E_USAGE', 'the request body is not a JSON object', { hint: 'send Content-Type: application/json with an object body' });
  }
}
