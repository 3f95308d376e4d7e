import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { updateObserveConfig } from '../../../core/observer/config.js';
import { sendObserverMessage } from '../../../core/observer/socket-client.js';
import type { ObserverStatus } from '../../../core/observer/status.js';
import type { InventoryEvent } from '../../../core/library/types.js';
import { issueToken } from '../../../hub/auth/tokens.js';
import { startHub, type RunningHub } from '../../../hub/serve.js';
import { runSf, tempDir } from '../../../test-support/index.js';
import { startObserverDaemon } from '../../../test-support/observer-daemon.js';
import { waitFor } from '../../../test-support/otlp-sink.js';

/**
 * An observer that was down while many SKITs were installed catches up with a large outbox: the
 * real daemon (built CLI) delivers it to a real hub, whose limit is 8,192 records per request.
 */

/** installs of distinct SKITs with two skills each: two inventory events per record */
const RECORDS = 4500;
const EVENTS = RECORDS * 2;

function outbox(records = RECORDS): string {
  const lines: string[] = [];
  for (let i = 0; i < records; i++) {
    const skit = `acme/kit-${i}`;
    const rec: InventoryEvent = {
      schema: 'forge/inventory-event/1', event_id: `ev-${i}`, event_name: 'agent.skill.inventory.changed', timestamp: new Date().toISOString(),
      skit_id: skit, release: { version: '1.0.0' }, bundle_hash: `sha256:${'9'.repeat(64)}`, action: 'installed', agent: 'claude-code', scope: 'user',
      actor_type: 'user', installer_version: '0.1.0',
      skills: [{ id: `${skit}:alpha`, content_hash: `sha256:${'1'.repeat(64)}`, enabled: true }, { id: `${skit}:beta`, content_hash: `sha256:${'2'.repeat(64)}`, enabled: true }],
    };
    lines.push(JSON.stringify(rec));
  }
  return lines.join('\n') + '\n';
}

interface LiveDestination {
  name: string;
  queued: { items: number; records: number };
  delivered: number;
  dropped: number;
  droppedBy: Record<string, number>;
}

/** The skill ids of the log records of each line of a file destination (one line per export). */
async function fileExports(file: string): Promise<string[][]> {
  type Line = { resourceLogs?: { scopeLogs: { logRecords: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] };
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line).filter((l) => l.resourceLogs)
    .map((l) => l.resourceLogs!.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords.map((rec) => rec.attributes.find((a) => a.key === 'agent.skill.id')?.value.stringValue ?? ''))));
}

describe('sf observe: catching up with a large outbox (real daemon, real hub)', function () {
  this.timeout(180_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;

  before(async () => {
    tmp = await tempDir('sf-observe-catchup-');
    hub = await startHub({ dataDir: join(tmp.path, 'hub') });
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  /** A user (own hub account) whose observer was down while RECORDS installs were written to the outbox; runs its daemon until everything is delivered or dropped. */
  async function catchUp(user: string, batch: { maxRecords: number; delayMs: number }) {
    const account = hub.storage.accounts.createUser(user, false);
    const pat = issueToken(hub.storage.tokens, { userId: account.id, kind: 'pat', name: 'cli', scopes: ['registry:read', 'telemetry:write'] }).secret;
    const home = join(tmp.path, user);
    const sfHome = join(home, '.sf');
    const env = { HOME: home, SF_HOME: sfHome, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', SF_HUB_TOKEN: '', SF_HUB_URL: '', PATH: '/usr/local/bin:/usr/bin:/bin' };
    const sf = (args: string[]) => runSf(args, { env, cwd: home });
    await mkdir(join(sfHome, 'queue'), { recursive: true });
    assert.equal((await runSf(['login', '--hub', hub.url], { env, cwd: home, input: pat })).code, 0);
    assert.equal((await sf(['observe', 'destination', 'add', 'forge', 'hub'])).code, 0);
    const file = join(home, 'telemetry.jsonl');
    assert.equal((await sf(['observe', 'destination', 'add', 'local', `file:${file}`])).code, 0);
    await updateObserveConfig(join(sfHome, 'config.json'), (o) => ({ ...o, batch }));
    await writeFile(join(sfHome, 'queue', 'outbox.jsonl'), outbox());

    const daemon = startObserverDaemon(sfHome, env);
    try {
      const live = await waitFor(async () => {
        const r = await sf(['observe', 'status', '--json']);
        const s = JSON.parse(r.stdout) as { observer: { normalized?: { events: number } }; destinations: LiveDestination[] };
        const done = s.observer.normalized?.events === EVENTS && s.destinations.every((d) => d.queued?.items === 0 && d.delivered + d.dropped >= EVENTS);
        return done ? s.destinations : undefined;
      }, 120_000, `the observer to deliver ${EVENTS} events (${daemon.output()})`);
      const health = await waitFor(async () => {
        const res = await fetch(`${hub.url}/api/v1/telemetry/health`, { headers: { authorization: `Bearer ${pat}` } });
        const h = (await res.json()) as { queued: number; summary: { records: number; rejected: number } };
        return h.queued === 0 && h.summary.records + h.summary.rejected >= EVENTS ? h.summary : undefined;
      }, 60_000, 'the hub to store the batches');
      const table = (await sf(['observe', 'status'])).stdout;
      return { live: Object.fromEntries(live.map((d) => [d.name, d])), health, table, exports: await fileExports(file) };
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  }

  it('delivers every record, in order, in exports of at most batch.maxRecords; status shows the destinations ok', async () => {
    const { live, health, table, exports } = await catchUp('alice', { maxRecords: 512, delayMs: 200 });
    assert.deepEqual(health, { ...health, records: EVENTS, rejected: 0 }, 'the hub stored every record and rejected none');
    for (const name of ['forge', 'local']) assert.deepEqual([live[name].delivered, live[name].dropped], [EVENTS, 0], name);
    assert.ok(exports.length >= EVENTS / 512, `${exports.length} exports`);
    const sizes = exports.map((e) => e.length);
    assert.ok(Math.max(...sizes) <= 512, `the largest export holds ${Math.max(...sizes)} records`);
    const expected = Array.from({ length: RECORDS }, (_, i) => [`acme/kit-${i}:alpha`, `acme/kit-${i}:beta`]).flat();
    assert.deepEqual(exports.flat(), expected, 'every record once, in outbox order');
    assert.match(table, /^forge\s.*\s0\s+ok\s*$/m);
    assert.match(table, /^local\s.*\s0\s+ok\s*$/m);
  });

  it('a destination that dropped records is not shown ok: status says what doctor says', async () => {
    // a batch size above the hub's limit, reached only once the whole backlog is journaled: one
    // export of EVENTS records, of which the hub keeps 8,192 and rejects the rest
    const { live, table } = await catchUp('bob', { maxRecords: EVENTS, delayMs: 600_000 });
    assert.deepEqual([live.forge.delivered, live.forge.dropped, live.forge.droppedBy], [8192, EVENTS - 8192, { rejected: EVENTS - 8192 }]);
    assert.match(table, new RegExp(`^forge\\s.*\\s${EVENTS - 8192}\\s+SF_OBSERVE_DROPPED: rejected ${EVENTS - 8192}\\s*$`, 'm'));
    assert.match(table, /^local\s.*\s0\s+ok\s*$/m);
  });

  it('a crash in the middle of a catch-up loses nothing: the outbox is read in chunks, each journaled with its offset', async () => {
    // more than one poll reads (4 MiB): the daemon starts after the first, and is killed before the last
    const records = RECORDS * 4;
    const events = records * 2;
    const home = join(tmp.path, 'crash');
    const file = join(home, 'telemetry.jsonl');
    await updateObserveConfig(join(home, 'config.json'), (o) => ({ ...o, destinations: [{ name: 'local', type: 'file', path: file }], batch: { maxRecords: 512, delayMs: 600_000 } }));
    await mkdir(join(home, 'queue'), { recursive: true });
    await writeFile(join(home, 'queue', 'outbox.jsonl'), outbox(records));
    const env = { HOME: tmp.path, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/local/bin:/usr/bin:/bin' };
    let d = startObserverDaemon(home, env);
    try {
      const socket = await waitFor(async () => (JSON.parse(await readFile(join(home, 'run', 'observe.json'), 'utf8').catch(() => '{}')) as { socket?: string }).socket, 30_000, 'the daemon to start');
      const status = (await sendObserverMessage(socket, { type: 'status' }, 5000)) as { status: ObserverStatus };
      d.child.kill('SIGKILL');
      await d.exited;
      const consumed = status.status.received.outbox;
      assert.ok(consumed > 0 && consumed < records, `killed in the middle of the catch-up (${consumed} of ${records} outbox records consumed)`);
      d = startObserverDaemon(home, env);
      const exports = await waitFor(async () => {
        const e = await fileExports(file).catch(() => []);
        return new Set(e.flat()).size === events ? e : undefined;
      }, 90_000, 'every record after the restart');
      const sizes = exports.map((e) => e.length);
      assert.ok(Math.max(...sizes) <= 512, `the largest export holds ${Math.max(...sizes)} records`);
      // at-least-once: only the export being written when the observer was killed may come again
      const expected = Array.from({ length: records }, (_, i) => [`acme/kit-${i}:alpha`, `acme/kit-${i}:beta`]).flat();
      assert.deepEqual([...new Set(exports.flat())], expected, 'every record, in outbox order');
      assert.ok(exports.flat().length - events <= 512, `${exports.flat().length - events} records delivered twice`);
      d.child.kill('SIGTERM');
      assert.equal(await d.exited, 0);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
    }
  });
});
