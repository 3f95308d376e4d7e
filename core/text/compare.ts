const PLAIN_ID = /^[a-z0-9/-]*$/;

/**
 * `a.localeCompare(b)` for identifiers (SKIT ids, agent ids, scopes). Strings made only of
 * lowercase ASCII letters, digits, `-` and `/` sort the same by code unit in the root, English and
 * POSIX collations, so those are compared directly: ICU's first use costs ~5 ms, a lot for a
 * command that lists things. Anything else still goes through localeCompare.
 */
export function compareIds(a: string, b: string): number {
  if (PLAIN_ID.test(a) && PLAIN_ID.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}
