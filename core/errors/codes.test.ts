import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../../test-support/index.js';
import { sourceFiles } from '../../test-support/source-files.js';
import { ERROR_CODES, exitCodeFor, httpStatusFor, type ErrorCode } from './codes.js';

describe('error code registry (core/errors/codes.ts)', () => {
  it('every registered code is raised somewhere, and every code raised is registered', async () => {
    const used = new Set<string>();
    for (const top of ['core', 'cli', 'hub', 'adapters']) {
      for (const file of await sourceFiles(join(repoRoot, top))) {
        if (file.endsWith(join('errors', 'codes.ts'))) continue;
        for (const m of (await readFile(file, 'utf8')).matchAll(/'(SF_E_[A-Z_]+)'/g)) used.add(m[1]);
      }
    }
    const registered = new Set(Object.keys(ERROR_CODES));
    assert.deepEqual([...registered].filter((c) => !used.has(c)), [], 'registered but never used');
    assert.deepEqual([...used].filter((c) => !registered.has(c)), [], 'used but not registered');
  });

  it('maps every code to a documented exit code and an HTTP error status', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      assert.ok([1, 2, 3, 4, 5, 6, 7, 8, 10].includes(exitCodeFor(code)), code);
      assert.ok(httpStatusFor(code) >= 400 && httpStatusFor(code) < 600, code);
    }
  });
});
