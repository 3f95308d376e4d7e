import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sfBin } from '../test-support/index.js';

describe('sf process behaviour', () => {
  it('exits quietly when the reader closes the pipe early (sf ... | head)', async () => {
    const child = spawn(process.execPath, [sfBin, 'skit', 'agents'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('usage errors exit 2 and unknown subcommands name the fix', async () => {
    const child = spawn(process.execPath, [sfBin, 'skit', 'no-such-command'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /Not a valid subcommand name/);
  });
});
