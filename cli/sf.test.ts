import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
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

  it('starts the bundle with the code cache trained for its command (skit hash/validate have their own)', () => {
    // npm test builds first, so the bundle and both caches are current
    const trace = (...args: string[]) => {
      const r = spawnSync(process.execPath, [sfBin, ...args], { env: { ...process.env, SF_TRACE_STARTUP: '1' }, encoding: 'utf8' });
      return /bundle compiled \(code cache ([^)]*)\)/.exec(r.stderr)?.[1];
    };
    assert.equal(trace('skit', 'hash', '--help'), 'used');
    assert.equal(trace('skit', 'validate', '--help'), 'used');
    assert.equal(trace('skit', 'list', '--help'), 'used');
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
