import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../../test-support/index.js';
import { ERROR_CODES } from '../errors/codes.js';
import { diagnostic, RULES } from './rules.js';
import { checkSchema, skillSchema, skitSchema } from './schemas.js';

describe('validation rule catalog', () => {
  it('documents every rule code in docs/validation-rules.md, with its severity', async () => {
    const doc = await readFile(join(repoRoot, 'docs', 'validation-rules.md'), 'utf8');
    for (const [code, rule] of Object.entries(RULES)) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      assert.ok(row, `${code} is not documented`);
      if (!code.startsWith('SKIT_QUOTA_')) assert.ok(row.includes(`| ${rule.severity} |`), `${code}: severity ${rule.severity} not in "${row}"`);
    }
  });

  it('maps every rule to a registered error code and gives it a hint', () => {
    for (const [code, rule] of Object.entries(RULES)) {
      assert.ok(rule.errorCode in ERROR_CODES, code);
      assert.ok(rule.hint.length > 10, code);
    }
    const d = diagnostic('SKIT_PATH_UNSAFE', 'm', { file: 'a', line: 1 }, { severity: 'warning', hint: 'h' });
    assert.deepEqual(d, { code: 'SKIT_PATH_UNSAFE', severity: 'warning', message: 'm', file: 'a', line: 1, hint: 'h', errorCode: 'SF_E_UNSAFE_PATH' });
  });

  it('compiles both JSON Schemas in ajv strict mode', () => {
    assert.deepEqual(checkSchema(skillSchema, { name: 'a', description: 'b' }), []);
    assert.deepEqual(checkSchema(skitSchema, { skit: 1, id: 'a/b', skills: [{ name: 'a', path: 'skills/a' }] }), []);
    assert.equal(checkSchema(skitSchema, { skit: 1, id: 'a/b', skills: [] })[0].keyword, 'minItems');
  });
});
