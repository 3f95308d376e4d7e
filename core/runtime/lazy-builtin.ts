import { createRequire } from 'node:module';

/**
 * A Node built-in module loaded the first time it is used. Commands start faster when they do not
 * load what only some of their paths need: node:child_process pulls in net and dgram, and
 * node:worker_threads the worker and messaging internals (a few ms per command, all told).
 * process.getBuiltinModule (Node >= 20.16) loads it synchronously; older Node 20 uses require.
 *
 * @example const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');
 *          childProcess().spawn('git', args);
 */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}

function load(id: string): unknown {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  return get ? get(id) : createRequire(import.meta.url)(id);
}
