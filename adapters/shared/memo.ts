import type { HostContext } from '../../core/install/host-adapter.js';

/** `read()`, once per `memo` and `key` (afresh every time without a memo). */
export function memoized<T>(key: string, read: () => Promise<T>, memo: HostContext['memo']): Promise<T> {
  if (!memo) return read();
  let value = memo.get(key) as Promise<T> | undefined;
  if (!value) memo.set(key, (value = read()));
  return value;
}
