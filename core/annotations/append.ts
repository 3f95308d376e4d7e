/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as an argument,
 * and an array of a few hundred thousand entries (one diagnostic per line of a 1 MB comment)
 * overflows the call stack; the parser promises never to throw on any input.
 */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const item of items) target.push(item);
  return target;
}
