import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { skillFrontmatterSchema as skillSchema } from '../../schemas/generated/skill-frontmatter.js';
import { validate as validateSkill } from '../../schemas/generated/skill-frontmatter.validate.js';
import { skitFrontmatterSchema as skitSchema } from '../../schemas/generated/skit-frontmatter.js';
import { validate as validateSkit } from '../../schemas/generated/skit-frontmatter.validate.js';
import { AJV_OPTIONS } from './schema-options.js';
import { pointerSegment } from './yaml-positions.js';

/**
 * The SKIT and SKILL.md frontmatter JSON Schemas (schemas/json/, embedded by the generator in
 * schemas/generated/) checked with ajv (draft 2020-12), and their errors turned into findings
 * keyed by JSON pointer, so callers can place them on YAML lines. The frontmatter validators are
 * precompiled by `npm run gen` (scripts/gen/validators.ts); any other schema is compiled with ajv
 * on first use, with the same options.
 */

export { skillSchema, skitSchema };

/** One schema violation: where (JSON pointer into the data) and what, in words. */
export interface SchemaFinding {
  pointer: string;
  keyword: string;
  message: string;
}

const compiled = new Map<object, ValidateFunction>([
  [skitSchema, validateSkit as unknown as ValidateFunction],
  [skillSchema, validateSkill as unknown as ValidateFunction],
]);
let ajv: Ajv2020 | undefined;

function validatorFor(schema: object): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    // required (not imported) so ajv is only loaded by processes that check a schema that is not precompiled
    const { Ajv2020: AjvClass } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    ajv ??= new AjvClass({ ...AJV_OPTIONS });
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Validates `data` against `schema`; an empty list means it conforms. */
export function checkSchema(schema: object, data: unknown): SchemaFinding[] {
  const validate = validatorFor(schema);
  if (validate(data)) return [];
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toFinding);
}

/** `/skills/0/shared/1/from` -> `skills[0].shared[1].from` */
export function pointerLabel(pointer: string): string {
  if (pointer === '') return '(frontmatter)';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function toFinding(e: ErrorObject): SchemaFinding {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const pointer = `${e.instancePath}/${pointerSegment(String(params.missingProperty))}`;
      return { pointer, keyword: e.keyword, message: `missing required key "${pointerLabel(pointer)}"` };
    }
    case 'additionalProperties': {
      const pointer = `${e.instancePath}/${pointerSegment(String(params.additionalProperty))}`;
      return { pointer, keyword: e.keyword, message: `unknown key "${pointerLabel(pointer)}"` };
    }
    case 'enum':
      return at(e, `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'const':
      return at(e, `must be ${JSON.stringify(params.allowedValue)}`);
    case 'pattern': {
      const why = (e.parentSchema as { description?: string } | undefined)?.description?.replace(/\.$/, '');
      const value = typeof e.data === 'string' ? ` "${e.data}"` : '';
      return at(e, `${value} does not have the required form: ${why ?? `the pattern ${String(params.pattern)}`}`.trimStart());
    }
    case 'uniqueItems':
      return at(e, `must not list the same value twice (items ${String(params.j)} and ${String(params.i)})`);
    default:
      return at(e, e.message ?? `fails the ${e.keyword} rule`);
  }
}

const at = (e: ErrorObject, message: string): SchemaFinding => ({
  pointer: e.instancePath,
  keyword: e.keyword,
  message: `${pointerLabel(e.instancePath)} ${message}`,
});
