import { createRequire } from 'node:module';
import { trace } from '../../core/trace/startup.js';

/**
 * jsonc-parser, loaded the first time a host config is parsed or edited. Initializing it builds
 * about 1,200 indentation strings (its formatter's cache), a few hundred KB that every
 * `sf add skit` paid even when no config file needed reading. As with yaml-lib.ts, esbuild turns
 * the `require` into the bundled copy in the CLI bundles; the modules tsc emits load the package.
 */
let loaded: typeof import('jsonc-parser') | undefined;

export function jsoncLib(): typeof import('jsonc-parser') {
  if (loaded) return loaded;
  loaded = (typeof require === 'function' ? require('jsonc-parser') : createRequire(import.meta.url)('jsonc-parser')) as typeof import('jsonc-parser');
  trace('jsonc-parser loaded');
  return loaded;
}
