import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS } from '../../core/skit/schema-options.js';
import { GENERATED_DIR, tsHeader, type GeneratedFile } from './files.js';
import { JSON_SCHEMA_DIR } from './json-types.js';

/**
 * Precompiled ajv validators (ajv standalone code) for the schemas the CLI checks on every
 * validate, pack, hash and install. Compiling them with ajv at run time cost ~75 ms of loading and
 * ~90 ms of compilation per process; the generated modules need only two tiny ajv run-time helpers.
 * Other schemas are compiled on first use by core/skit/schemas.ts, as before.
 */
export const PRECOMPILED_SCHEMAS = ['skit-frontmatter', 'skill-frontmatter'] as const;

/** Output path of the validator of `schemas/json/<base>.schema.json`. */
export const validatorPath = (base: string): string => `${GENERATED_DIR}/${base}.validate.ts`;

// the CommonJS module as tsx and Node load it: its function may sit on `.default`
const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as (ajv: Ajv2020, validate: ValidateFunction) => string;

/**
 * ajv's ESM standalone output still calls `require()` for its run-time helpers (`require(x).default`);
 * an ESM module has no `require`, so each becomes a default import. What a default import of a
 * CommonJS module yields differs between loaders (Node and the bundle: `module.exports`; tsx's
 * CommonJS mode under mocha: `module.exports.default` when `__esModule` is set), so `cjs()` turns
 * either into an object whose `.default` is the helper.
 */
export function requiresToImports(code: string): { imports: string[]; body: string } {
  const names = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_, spec: string) => {
    if (!/^ajv\/dist\/runtime\/[a-z0-9]+$/.test(spec)) throw new Error(`ajv standalone code requires ${spec}; only ajv/dist/runtime/* helpers are supported`);
    let name = names.get(spec);
    if (!name) names.set(spec, (name = `runtime${names.size}`));
    return `cjs(${name})`;
  });
  const imports = [...names].map(([spec, name]) => `import ${name} from '${spec}.js';`);
  if (imports.length) imports.push('const cjs = (m) => (m && m.__esModule ? m : { default: m });');
  return { imports, body };
}

/** The generated validator modules, one per name in PRECOMPILED_SCHEMAS. */
export async function generateValidators(root: string): Promise<GeneratedFile[]> {
  const out: GeneratedFile[] = [];
  for (const base of PRECOMPILED_SCHEMAS) {
    const rel = `${JSON_SCHEMA_DIR}/${base}.schema.json`;
    const schema = JSON.parse(await readFile(path.join(root, rel), 'utf8')) as object;
    const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true, esm: true } });
    let code: string;
    try {
      code = standalone(ajv, ajv.compile(schema));
    } catch (e) {
      throw new Error(`${rel}: ajv cannot compile it with the options of core/skit/schema-options.ts: ${(e as Error).message}`);
    }
    // ESM is always strict: drop the directive, which would sit after the imports
    const { imports, body } = requiresToImports(code.replace(/^"use strict";/, ''));
    const content = [
      tsHeader(rel),
      '// @ts-nocheck -- ajv standalone code: untyped JavaScript; core/skit/schemas.ts types it as a ValidateFunction.',
      `/* eslint-disable */`,
      ...imports,
      body,
      '',
    ].join('\n');
    out.push({ path: validatorPath(base), content });
  }
  return out;
}
