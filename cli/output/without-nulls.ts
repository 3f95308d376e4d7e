/**
 * `value` with every object field whose value is null left out, at any depth (array items stay):
 * docs/cli-json.md promises that an unknown optional field is absent, never null, unless it is
 * documented as nullable. For outputs that pass on another service's JSON (the hub's SKIT and
 * release views use null for "none"), and that document no nullable field.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutNulls(v)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = withoutNulls(v);
  return out as T;
}
