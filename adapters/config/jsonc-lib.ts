import { createRequire } from 'node:module';
import { lazyPackage } from '../../core/runtime/lazy-package.js';

/**
 * jsonc-parser, loaded the first time a host config is parsed or edited. Initializing it builds
 * about 1,200 indentation strings (its formatter's cache), a few hundred KB that every
 * `sf add skit` paid even when no config file needed reading.
 */
export const jsoncLib = lazyPackage('jsonc-parser', () =>
  (typeof require === 'function' ? require('jsonc-parser') : createRequire(import.meta.url)('jsonc-parser')) as typeof import('jsonc-parser'),
);
