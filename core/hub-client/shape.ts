/**
 * Shape checks for hub answers. A hub (or a proxy in front of one) can answer with any JSON, and
 * a command that trusts its shape ends in a TypeError or prints "undefined": each answer is
 * checked against the fields a command reads before it is used (client.ts `readJson`).
 */

/** What is wrong with `value` at `at` (a path such as `release.skills[0].hash`), or undefined when it fits. */
export type Shape = (value: unknown, at: string) => string | undefined;

const named = (at: string) => at || 'the answer';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const typed = (kind: string, fits: (value: unknown) => boolean): Shape => (value, at) => {
  if (fits(value)) return undefined;
  return value === undefined ? `${named(at)} is missing` : `${named(at)} is ${describe(value)}, not ${kind}`;
};

export const aString = typed('a string', (v) => typeof v === 'string');
export const aNumber = typed('a number', (v) => typeof v === 'number' && Number.isFinite(v));
export const aBoolean = typed('a boolean', (v) => typeof v === 'boolean');

/** `shape`, or the field left out. */
export const optional = (shape: Shape): Shape => (value, at) => (value === undefined ? undefined : shape(value, at));

/** `shape`, or null. */
export const nullable = (shape: Shape): Shape => (value, at) => (value === null ? undefined : shape(value, at));

export const listOf = (item: Shape): Shape => (value, at) => {
  if (!Array.isArray(value)) return typed('a list', () => false)(value, at);
  for (let i = 0; i < value.length; i++) {
    const problem = item(value[i], `${at}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
};

/** An object with (at least) `fields`; other fields are the hub's business. */
export const objectWith = (fields: Record<string, Shape>): Shape => (value, at) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return typed('an object', () => false)(value, at);
  for (const [key, shape] of Object.entries(fields)) {
    const problem = shape((value as Record<string, unknown>)[key], at ? `${at}.${key}` : key);
    if (problem) return problem;
  }
  return undefined;
};
