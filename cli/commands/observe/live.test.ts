import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startObserverDaemon, waitFor, type DaemonProcess } from '../../../test-support/hosts/observe.js';
import { fixturesDir, runSf, tempDir } from '../../../test-support/index.js';

/** The session of the fixtures/host-otlp/claude-tool-details capture. */
const CLAUDE_SESSION = 'cc0fce32-f629-46aa-bab4-1eeb5519e738';

/**
 * `status` and `doctor` against a running observer: a registration spooled while it was down (as
 * an older Forge's Claude hook left them) is replayed, and a Claude Code session is registered
 * from its transcript when its logs arrive.
 */
describe('sf observe status / doctor with a running observer', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let daemon: DaemonProcess | undefined;
  after(async () => {
    await daemon?.stop();
    await tmp?.cleanup();
  });

  it('a registration spooled while the observer was down is replayed when it starts, a Claude session registers from its transcript; status and doctor see a healthy observer', async () => {
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

    assert.ok(!existsSync(join(home, '.sf', 'observe', 'hooks')), 'no hook script is installed');

    const spool = join(home, '.sf', 'queue', 'spool');
    await mkdir(spool, { recursive: true });
    const spooled = { type: 'register', agent: 'claude-code', session_id: 'sess-1', cwd: project };
    // with a broken line, which the replay drops and counts
    await writeFile(join(spool, 'claude-code.jsonl'), JSON.stringify({ at: Math.floor(Date.now() / 1000), message: spooled }) + '\nnot json\n');
    const dead = JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics.map((d: { code: string }) => d.code);
    assert.ok(dead.includes('SF_OBSERVE_DEAD') && dead.includes('SF_OBSERVE_SPOOLED'), dead.join(','));

    daemon = await startObserverDaemon({ HOME: home, SF_HOME: join(home, '.sf') });
    const live = (sessions: number) => async () => {
      const s = JSON.parse((await sf(['observe', 'status', '--json'])).stdout);
      return s.observer.live && s.observer.sessions === sessions && s.destinations[0].canary?.ok ? s : undefined;
    };
    const status = await waitFor('a live status with the replayed session and a passing canary', live(1));
    assert.equal(status.observer.running, true);
    assert.equal(status.spool.lines, 0);
    assert.deepEqual(readdirSync(spool), []);
    assert.equal(status.observer.received.rejectedMessages, 1, 'the dropped spool line is counted');

    // Claude's logs for a session the observer does not know: registered from Claude's transcript under $HOME/.claude
    const transcript = join(home, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
    await mkdir(transcript, { recursive: true });
    await writeFile(join(transcript, `${CLAUDE_SESSION}.jsonl`), JSON.stringify({ type: 'user', sessionId: CLAUDE_SESSION, cwd: project }) + '\n');
    const logs = await fetch(`http://127.0.0.1:${port}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await readFile(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'logs.json')) });
    assert.equal(logs.status, 200);
    await waitFor('the Claude session registered from its transcript', live(2));
    const doctor = await sf(['observe', 'doctor', '--json']);
    const report = JSON.parse(doctor.stdout);
    assert.equal(report.ok, true, JSON.stringify(report.diagnostics));
    assert.equal(doctor.code, 0);
    const human = await sf(['observe', 'status']);
    assert.match(human.stdout, new RegExp(`observer: running \\(pid \\d+, http://127\\.0\\.0\\.1:${port}, fanout`));
    assert.ok(existsSync(join(tmp.path, 'obs.jsonl')), 'the file destination exists after its canary');
  });
});
