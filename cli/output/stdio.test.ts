import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';

const child = join(import.meta.dirname, 'fixtures', 'stdio-child.ts');
const run = (args: string[]) => [process.execPath, '--import', 'tsx', child, ...args];

describe('cli output written with write(2) (output/stdio.ts)', () => {
  for (const mode of ['flood', 'flood-utf8']) {
    it(`delivers every byte in order when the pipe is non-blocking and its reader slow (${mode})`, async () => {
      const total = 3 * 1024 * 1024 + 17;
      const [cmd, ...args] = run([mode, String(total)]);
      const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      // nothing is read for a while, so the pipe fills up and write(2) writes part or answers EAGAIN
      p.stdout.pause();
      await new Promise((r) => setTimeout(r, 300));
      const chunks: Buffer[] = [];
      p.stdout.on('data', (d: Buffer) => chunks.push(d));
      p.stdout.resume();
      const code = await new Promise<number | null>((r) => p.on('close', r));
      assert.equal(stderr, '');
      assert.equal(code, 0);
      const text = Buffer.concat(chunks).toString('utf8');
      assert.equal(text.length, total);
      const expected = (i: number) => (mode === 'flood-utf8' && i % 10 === 0 ? 'ä' : String(i % 10));
      const wrong = [...text].findIndex((c, i) => c !== expected(i));
      assert.equal(wrong, -1, `character ${wrong} is out of order`);
    });
  }

  it('tells terminals from pipes, files and /dev/null', async () => {
    const pipe = spawnSync(run(['terminal'])[0], run(['terminal']).slice(1), { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(pipe.stdout), { stdout: false, stderr: false });

    const dir = await tempDir();
    const file = join(dir.path, 'out.txt');
    const fd = openSync(file, 'w');
    const devNull = openSync('/dev/null', 'w');
    try {
      spawnSync(run(['terminal'])[0], run(['terminal']).slice(1), { stdio: ['ignore', fd, devNull] });
    } finally {
      closeSync(fd);
      closeSync(devNull);
    }
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { stdout: false, stderr: false });
    await dir.cleanup();
  });

  it('answers true on a real terminal (a pseudo-terminal from script(1))', function () {
    if (!existsSync('/usr/bin/script')) this.skip();
    const command = run(['terminal']).map((a) => `'${a}'`).join(' ');
    // script runs the command on a fresh pty (stdout and stderr both) and copies what it prints
    const r = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim()), { stdout: true, stderr: true });
  });
});
