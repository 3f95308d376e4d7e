import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { readCappedBody } from '../http/capped-body.js';
import { echo } from './query-params.js';

const MAX_JSON_BYTES = 64 * 1024;

const tooLarge = (max: number) =>
  new SfError('SF_E_LIMIT', `JSON body over ${max} bytes`, { hint: `send a smaller JSON object (at most ${max} bytes)`, data: { limit: 'maxJsonBytes', max } });

/**
 * Reads a small JSON object body, with a clear error for anything else. The body is capped while
 * it arrives: a 500 MB "JSON" body is refused after 64 KiB, never held in memory. `fields` are the
 * names the route reads: any other is SF_E_USAGE naming it and them, since a misspelt field
 * (`quarantine` for `quarantined`) would otherwise be a success that changed nothing; so is any
 * query parameter, for the same reason.
 */
export async function readJson<T extends object>(c: Context, fields: readonly string[]): Promise<T> {
  // these routes take their input from the body only: `PATCH …?visibility=private` would change nothing
  const query = Object.keys(c.req.queries());
  if (query.length) {
    throw new SfError('SF_E_USAGE', `unknown query parameter${query.length > 1 ? 's' : ''} ${query.map(echo).join(', ')}`, {
      hint: `this route takes no query parameters: send ${fields.map((f) => `"${f}"`).join(', ')} in the JSON body`,
    });
  }
  const text = (await readCappedBody(c.req.raw, MAX_JSON_BYTES, tooLarge)).toString('utf8');
  if (text.trim() === '') return {} as T;
  let value: unknown;
  try {
    value = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
  } catch {
    throw new SfError('SF_E_USAGE', 'the request body is not a JSON object', { hint: 'send Content-Type: application/json with an object body' });
  }
  checkFields(value as Record<string, unknown>, fields, '');
  return value as T;
}

/** SF_E_USAGE naming every key of `obj` not in `fields` (`within`: the path of a nested object, e.g. `quarantined.`). */
export function checkFields(obj: Record<string, unknown>, fields: readonly string[], within: string): void {
  const unknown = Object.keys(obj).filter((k) => !fields.includes(k));
  if (!unknown.length) return;
  const names = unknown.map((k) => `"${within}${echo(k)}"`).join(', ');
  throw new SfError('SF_E_USAGE', `unknown field${unknown.length > 1 ? 's' : ''} ${names} in the request body`, {
    hint: fields.length ? `${within ? `${within.slice(0, -1)} takes` : 'this route takes'} ${fields.map((f) => `"${f}"`).join(', ')}` : 'send an empty body',
    location: { pointer: `${within}${unknown[0]}` },
  });
}

/** SF_E_USAGE for a body field of the wrong type or value, naming it (`location.pointer`) and what it takes. */
export function badField(field: string, expected: string, hint: string): SfError {
  return new SfError('SF_E_USAGE', `${field} must be ${expected}`, { hint, location: { pointer: field } });
}
