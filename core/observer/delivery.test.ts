import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { appendToFileDestination } from './delivery.js';

describe('observer delivery: file destinations', () => {
  it('a new file is created 0600; an existing file readable by others is made 0600 before telemetry goes in', async () => {
    const tmp = await tempDir('sf-delivery-file-');
    try {
      const fresh = join(tmp.path, 'new', 'telemetry.jsonl');
      await appendToFileDestination(fresh, '{"a":1}');
      assert.equal((await stat(fresh)).mode & 0o777, 0o600);
      const existing = join(tmp.path, 'old.jsonl');
      await writeFile(existing, 'before\n', { mode: 0o644 });
      assert.equal((await stat(existing)).mode & 0o777, 0o644);
      await appendToFileDestination(existing, '{"b":2}');
      assert.equal((await stat(existing)).mode & 0o777, 0o600, 'tightened, as new files are');
      assert.equal(await readFile(existing, 'utf8'), 'before\n{"b":2}\n');
    } finally {
      await tmp.cleanup();
    }
  });
});
