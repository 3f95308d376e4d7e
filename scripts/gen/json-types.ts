import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { GENERATED_DIR, tsHeader, type GeneratedFile } from './files.js';
import { tsLiteral } from './ts-literal.js';

export const JSON_SCHEMA_DIR = 'schemas/json';
const SUFFIX = '.schema.json';

/** `observation-envelope` -> `observationEnvelope` */
function camel(base: string): string {
  return base.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/^[^A-Za-z_$]+/, '');
}

/** Every `schemas/json/*.schema.json`, sorted. */
export async function listJsonSchemas(root: string): Promise<string[]> {
  try {
    return (await readdir(path.join(root, JSON_SCHEMA_DIR))).filter((n) => n.endsWith(SUFFIX)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/**
 * For every JSON Schema in schemas/json, produce schemas/generated/<basename>.ts holding its
 * TypeScript types (json-schema-to-typescript) and the schema itself as a const, so validators can
 * compile it with ajv without reading files at run time.
 */
export async function generateJsonTypes(root: string): Promise<GeneratedFile[]> {
  const dir = path.join(root, JSON_SCHEMA_DIR);
  const out: GeneratedFile[] = [];
  for (const file of await listJsonSchemas(root)) {
    const rel = `${JSON_SCHEMA_DIR}/${file}`;
    let schema: JSONSchema;
    try {
      schema = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as JSONSchema;
    } catch (e) {
      throw new Error(`${rel}: not valid JSON (${(e as Error).message}); fix the file and run npm run gen again`);
    }
    const base = file.slice(0, -SUFFIX.length);
    const rootName = base.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase());
    let types: string;
    try {
      types = await compile(structuredClone(schema), rootName, {
        bannerComment: '',
        cwd: dir,
        format: true,
        style: { singleQuote: true, printWidth: 120 },
        unreachableDefinitions: true,
      });
    } catch (e) {
      throw new Error(`${rel}: json-schema-to-typescript failed: ${(e as Error).message}`);
    }
    const constName = `${camel(base)}Schema`;
    const content = [
      tsHeader(rel),
      types.trim(),
      '',
      `/** The JSON Schema ${file} itself, for validators (e.g. ajv) that must not read files at run time. */`,
      `export const ${constName} = ${tsLiteral(schema)} as const;`,
      '',
    ].join('\n');
    out.push({ path: `${GENERATED_DIR}/${base}.ts`, content });
  }
  return out;
}
