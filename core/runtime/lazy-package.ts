import { trace } from '../trace/startup.js';

/**
 * An npm package initialized the first time it is used (traced as `<name> loaded` with
 * SF_TRACE_STARTUP=1). `load` must spell out `require('<name>')` itself: esbuild then bundles the
 * package into the CLI bundles (and the code cache holds it) but runs its initialization only on
 * this first call. The modules tsc emits have no `require`, so `load` falls back to createRequire.
 *
 * @example export const yamlLib = lazyPackage('yaml', () =>
 *            (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof import('yaml'));
 */
export function lazyPackage<T>(name: string, load: () => T): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      loaded = load();
      trace(`${name} loaded`);
    }
    return loaded;
  };
}
