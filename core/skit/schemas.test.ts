import assert from 'node:assert/strict';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { validate as precompiledSkill } from '../../schemas/generated/skill-frontmatter.validate.js';
import { validate as precompiledSkit } from '../../schemas/generated/skit-frontmatter.validate.js';
import { AJV_OPTIONS } from './schema-options.js';
import { checkSchema, skillSchema, skitSchema } from './schemas.js';

/** The errors of a validator, reduced to what findings are built from. */
type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
function errorsOf(validate: Validator, data: unknown) {
  return validate(data) ? [] : (validate.errors ?? []).map((e) => ({ path: e.instancePath, keyword: e.keyword, params: e.params, data: e.data, parentSchema: e.parentSchema }));
}

const skitCases: unknown[] = [
  { skit: 1, id: 'a/b', skills: [{ name: 'a', path: 'skills/a' }] },
  { skit: 1, id: 'a/b', skills: [] },
  { skit: 2, id: 'A B', skills: [{ name: 'x'.repeat(80), path: '/abs', default_enabled: 'yes' }], extra: true },
  { skit: 1, id: 'a/b', skills: [{ name: 'a', path: 'skills/a' }, { name: 'a', path: 'skills/a' }], shared: [{ from: 'x', to: 'y' }, { from: 'x', to: 'y' }] },
  { skit: 1, id: 'a/b', skills: [{ name: 'a', path: 'skills/a', trigger_modes: ['bogus'], capabilities: [{}] }] },
  'not an object',
  null,
];
const skillCases: unknown[] = [
  { name: 'a', description: 'b' },
  { name: 'Bad Name', description: '' },
  { name: 'a', description: 'd'.repeat(2000), license: 3, metadata: { k: 1 }, unknown: true },
  { name: '\u{1F600}'.repeat(40), description: 'non-BMP characters count once each toward maxLength' },
  {},
];

describe('precompiled schema validators (schemas/generated/*.validate.ts)', () => {
  it('report exactly what ajv compiling the schema at run time reports', () => {
    const ajv = new Ajv2020({ ...AJV_OPTIONS });
    const runtimeSkit = ajv.compile(skitSchema) as Validator;
    const runtimeSkill = ajv.compile(skillSchema) as Validator;
    for (const data of skitCases) assert.deepEqual(errorsOf(precompiledSkit as Validator, data), errorsOf(runtimeSkit, data), JSON.stringify(data));
    for (const data of skillCases) assert.deepEqual(errorsOf(precompiledSkill as Validator, data), errorsOf(runtimeSkill, data), JSON.stringify(data));
  });

  it('are what checkSchema uses for the frontmatter schemas, and other schemas still compile on first use', () => {
    const found = checkSchema(skillSchema, { name: 'Bad Name', description: 'x' });
    assert.ok(found.some((f) => f.pointer === '/name' && f.keyword === 'pattern'), JSON.stringify(found));
    const adHoc = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
    assert.deepEqual(checkSchema(adHoc, { n: 1 }), []);
    assert.deepEqual(checkSchema(adHoc, {}), [{ pointer: '/n', keyword: 'required', message: 'missing required key "n"' }]);
  });
});
