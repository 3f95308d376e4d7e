import { createRequire } from 'node:module';
import { trace } from '../trace/startup.js';

/**
 * The yaml library, loaded the first time a document needs it. Most frontmatter is plain YAML that
 * yaml-plain.ts reads without it, and initializing the library costs a few milliseconds of every
 * `sf add skit`, `sf skit hash` and `sf skit validate`. In the CLI bundles esbuild turns the
 * `require('yaml')` below into the bundled copy, initialized on this first call (and held in the
 * code cache); the modules tsc emits, which have no `require`, load the package itself.
 */
let loaded: typeof import('yaml') | undefined;

export function yamlLib(): typeof import('yaml') {
  if (loaded) return loaded;
  loaded = (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof import('yaml');
  trace('yaml loaded');
  return loaded;
}
