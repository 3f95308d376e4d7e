import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startObserverDaemon, waitFor, type DaemonProcess } from '../../../test-support/hosts/observe.js';
import { runSf, tempDir } from '../../../test-support/index.js';

function runHook(script: string, input: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script], { stdio: ['pipe', 'ignore', 'ignore'], env: { PATH: '/usr/bin:/bin' } });
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.end(input);
  });
}

/** `status` and `doctor` against a running observer, and the spool of a hook that ran while it was down. */
describe('sf observe status / doctor with a running observer', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let daemon: DaemonProcess | undefined;
  after(async () => {
    await daemon?.stop();
    await tmp?.cleanup();
  });

  it('a registration spooled while the observer was down is replayed when it starts; status and doctor see a healthy observer', async () => {
    tmp = await tempDir('sf-observe-live-');
    const home = join(tmp.path, 'home');
    const project = join(tmp.path, 'proj');
    await mkdir(project, { recursive: true });
    execFileSync('git', ['init', '-q', project]);
    const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '' };
    const sf = async (args: string[]) => runSf(args, { env, cwd: tmp.path });
    const port = await freePort();
    const install = await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code', '--port', String(port), '--destination', `file:${join(tmp.path, 'obs.jsonl')}`]);
    assert.equal(install.code, 0, install.stderr);

    const hook = join(home, '.sf', 'observe', 'hooks', 'claude-code-skill.sh');
    assert.equal(await runHook(hook, JSON.stringify({ session_id: 'sess-1', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Skill', tool_input: { skill: 'review' } })), 0);
    const dead = JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics.map((d: { code: string }) => d.code);
    assert.ok(dead.includes('SF_OBSERVE_DEAD') && dead.includes('SF_OBSERVE_SPOOLED'), dead.join(','));

    daemon = await startObserverDaemon({ HOME: home, SF_HOME: join(home, '.sf') });
    const status = await waitFor('a live status with the replayed session and a passing canary', async () => {
      const s = JSON.parse((await sf(['observe', 'status', '--json'])).stdout);
      return s.observer.live && s.observer.sessions === 1 && s.destinations[0].canary?.ok ? s : undefined;
    });
    assert.equal(status.observer.running, true);
    assert.equal(status.spool.lines, 0);
    assert.deepEqual(readdirSync(join(home, '.sf', 'queue', 'spool')), []);
    const doctor = await sf(['observe', 'doctor', '--json']);
    const report = JSON.parse(doctor.stdout);
    assert.equal(report.ok, true, JSON.stringify(report.diagnostics));
    assert.equal(doctor.code, 0);
    const human = await sf(['observe', 'status']);
    assert.match(human.stdout, new RegExp(`observer: running \\(pid \\d+, http://127\\.0\\.0\\.1:${port}, fanout`));
    assert.ok(existsSync(join(tmp.path, 'obs.jsonl')), 'the file destination exists after its canary');
  });
});
