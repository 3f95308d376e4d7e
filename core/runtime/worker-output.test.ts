import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../test-support/index.js';

describe('worker output (core/runtime/worker-output)', () => {
  it("copies what a worker prints to the process's stdout and stderr without creating their streams", () => {
    // the compiled fixture (npm test builds first), run without tsx, whose loader loads net itself
    const script = join(repoRoot, 'dist', 'core', 'runtime', 'fixtures', 'print-from-worker.js');
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'to stdout from the worker\nstreams created: none\n');
    assert.equal(r.stderr, 'to stderr from the worker\n');
  });
});
