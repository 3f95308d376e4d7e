import { createRequire } from 'node:module';
import { lazyPackage } from '../runtime/lazy-package.js';

/**
 * The yaml library, loaded the first time a document needs it. Most frontmatter is plain YAML that
 * yaml-plain.ts reads without it, and initializing the library costs a few milliseconds of every
 * `sf add skit`, `sf skit hash` and `sf skit validate`.
 */
export const yamlLib = lazyPackage('yaml', () => (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof import('yaml'));
