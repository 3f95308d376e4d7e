import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startObserverDaemon, type DaemonProcess } from '../../../test-support/hosts/observe.js';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * `sf observe install --yes` while an observer runs in the foreground (no systemd user manager
 * here): the hosts are re-pointed at once, the observer keeps what it loaded at start, and the
 * output says so instead of naming a port nobody listens on as if it were live.
 */
describe('sf observe install / update while an observer runs', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let daemon: DaemonProcess | undefined;
  after(async () => {
    await daemon?.stop();
    await tmp?.cleanup();
  });

  it('a new port or destination: the running observer is named with the port it still listens on, and how to restart it', async () => {
    tmp = await tempDir('sf-observe-running-');
    const home = join(tmp.path, 'home');
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeFile(join(home, '.claude', 'settings.json'), '{}\n');
    const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', PATH: '/usr/bin:/bin' };
    const sf = (args: string[]) => runSf(args, { env, cwd: tmp.path });
    const [p1, p2] = [await freePort(), await freePort()];
    const first = await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code', '--port', String(p1)]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`^observer: not running \\(hosts send to 127\\.0\\.0\\.1:${p1}\\); start it: \`sf observe daemon\`; service: not installed`, 'm'));
    daemon = await startObserverDaemon({ HOME: home, SF_HOME: join(home, '.sf') });
    const pid = daemon.child.pid;

    // nothing changed: the running observer serves it
    const same = await sf(['observe', 'install', '--yes', '--no-service']);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, new RegExp(`^observer: running on 127\\.0\\.0\\.1:${p1} \\(pid ${pid}\\)`, 'm'));
    assert.doesNotMatch(same.stderr, /restart/);

    const moved = await sf(['observe', 'install', '--yes', '--no-service', '--port', String(p2)]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(await readFile(join(home, '.claude', 'settings.json'), 'utf8'), new RegExp(`"http://127\\.0\\.0\\.1:${p2}"`));
    assert.match(moved.stdout, new RegExp(`^observer: hosts now send to 127\\.0\\.0\\.1:${p2}; service:`, 'm'));
    assert.doesNotMatch(moved.stdout, new RegExp(`observer: 127\\.0\\.0\\.1:${p2}`));
    assert.match(moved.stderr, new RegExp(`note: the running observer \\(pid ${pid}\\) still listens on 127\\.0\\.0\\.1:${p1}, not on ${p2}: nothing receives the hosts' telemetry until you restart it: stop \`sf observe daemon\` and start it again`));
    const json = JSON.parse((await sf(['observe', 'install', '--yes', '--no-service', '--json'])).stdout);
    assert.deepEqual(json.observer, { running: true, pid, listening: p1, restartNeeded: true });

    // update re-points the hosts too: it says the same
    const update = await sf(['observe', 'update']);
    assert.equal(update.code, 0, update.stderr);
    assert.match(update.stderr, new RegExp(`still listens on 127\\.0\\.0\\.1:${p1}, not on ${p2}`));

    // back on the observer's port, a new destination: it runs, but without that destination
    const back = await sf(['observe', 'install', '--yes', '--no-service', '--port', String(p1), '--destination', `team=file:${join(tmp.path, 'team.jsonl')}`]);
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stdout, new RegExp(`^observer: hosts now send to 127\\.0\\.0\\.1:${p1}; service:`, 'm'));
    assert.match(back.stderr, new RegExp(`note: the running observer \\(pid ${pid}\\) has not loaded this configuration \\(it reads it at start\\): restart it to apply: stop \`sf observe daemon\` and start it again`));
  });
});
