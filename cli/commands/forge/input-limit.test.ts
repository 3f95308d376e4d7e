import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, sfBin, tempDir } from '../../../test-support/index.js';

const MiB = 1024 * 1024;

/**
 * Runs `sf args` with a stdin that keeps sending `a`s until sf exits (or `giveUpAfter` bytes were
 * sent): a command that buffers its whole input first would read until the end.
 */
function runWithEndlessStdin(args: string[], giveUpAfter: number): Promise<{ code: number; stderr: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [sfBin, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
    const chunk = Buffer.alloc(MiB, 'a');
    let sent = 0;
    let stderr = '';
    let closed = false;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => undefined); // EPIPE once sf stopped reading: expected
    const pump = () => {
      while (!closed && sent < giveUpAfter) {
        sent += chunk.length;
        if (!child.stdin.write(chunk)) return void child.stdin.once('drain', pump);
      }
      if (!closed) child.stdin.end();
    };
    child.on('error', reject);
    child.on('close', (code) => {
      closed = true;
      resolve({ code: code ?? -1, stderr, sent });
    });
    pump();
  });
}

describe('sf forge: input from stdin and files is capped at 32 MiB (D3)', () => {
  it('parse and check refuse stdin past the cap while reading it, with SF_E_LIMIT (exit 6)', async () => {
    for (const command of ['parse', 'check']) {
      const r = await runWithEndlessStdin(['forge', command, '-'], 96 * MiB);
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /error\[SF_E_LIMIT\]: the input on stdin \(comments\) is larger than 32 MiB, the most a forge command reads/);
      assert.match(r.stderr, /hint: /);
      assert.ok(r.sent < 96 * MiB, `sf read on to ${r.sent} bytes`);
    }
    const json = await runWithEndlessStdin(['forge', 'parse', '-', '--json'], 96 * MiB);
    assert.equal(json.code, 6);
    assert.equal(JSON.parse(json.stderr).error.code, 'SF_E_LIMIT');
  });

  it('parse, render --data and evidence --data refuse a file past the cap before reading it', async () => {
    const dir = await tempDir('forge-limit-');
    try {
      const big = join(dir.path, 'big.json');
      // sparse: the size is what counts
      await writeFile(big, '');
      await truncate(big, 32 * MiB + 1);
      const cases = [
        ['forge', 'parse', big],
        ['forge', 'render', 'GATE_FAILED', '--data', big],
        ['forge', 'evidence', '--data', big],
      ];
      for (const args of cases) {
        const r = await runSf(args, { cwd: dir.path });
        assert.equal(r.code, 6, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /error\[SF_E_LIMIT\]: .*file .*big\.json is larger than 32 MiB/);
      }
      const fits = join(dir.path, 'fits.md');
      await writeFile(fits, '');
      await truncate(fits, 32 * MiB);
      assert.equal((await runSf(['forge', 'parse', fits, '--json'], { cwd: dir.path })).code, 0, 'exactly 32 MiB is read');
    } finally {
      await dir.cleanup();
    }
  });
});
