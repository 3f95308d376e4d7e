import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, tempDir } from '../../test-support/index.js';
import { startObserverDaemon } from '../../test-support/observer-daemon.js';
import { waitFor } from '../../test-support/otlp-sink.js';
import { updateObserveConfig } from './config.js';
import { sendObserverMessage } from './socket-client.js';
import type { ObserverStatus } from './status.js';
import { logsRequestToEnvelopes } from '../telemetry/envelope-otlp.js';
import { decodeOtlpRequest } from '../telemetry/otlp/decode.js';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';

/**
 * What the observer acknowledged survives a crash (SIGKILL) inside the batch window: an OTLP
 * export it answered 200 for, and an outbox record whose offset it moved. Real daemons of the
 * built CLI, killed for real.
 */

const runtimeOf = async (home: string) => JSON.parse(await readFile(join(home, 'run', 'observe.json'), 'utf8')) as { url: string; socket: string; pid: number };
const statusOf = async (socket: string) => ((await sendObserverMessage(socket, { type: 'status' }, 5000)) as { status: ObserverStatus }).status;

const INVENTORY = {
  schema: 'forge/inventory-event/1', event_id: 'ev-crash-1', event_name: 'agent.skill.inventory.changed', timestamp: '2026-11-30T03:30:00.000Z',
  skit_id: 'acme/greetings', release: { version: '1.2.0' }, bundle_hash: `sha256:${'9'.repeat(64)}`, action: 'installed', agent: 'claude-code', scope: 'project',
  actor_type: 'user', installer_version: '0.1.0', skills: [{ id: 'acme/greetings:hello-skill', content_hash: `sha256:${'1'.repeat(64)}`, enabled: true }],
};

describe('observer crash inside the batch window (built CLI, SIGKILL)', function () {
  this.timeout(90_000);

  it('delivers after a restart what it answered 200 for and the outbox records it consumed', async () => {
    const tmp = await tempDir('sf-observer-crash-');
    const home = join(tmp.path, 'home');
    const file = join(tmp.path, 'telemetry.jsonl');
    // a batch window far longer than the test: only a durable acknowledgement gets anything out
    await updateObserveConfig(join(home, 'config.json'), (o) => ({ ...o, destinations: [{ name: 'local', type: 'file', path: file }], batch: { maxRecords: 100_000, delayMs: 600_000 } }));
    let d = startObserverDaemon(home);
    try {
      await waitFor(() => d.output().includes('listening on'), 30_000, 'the daemon to start');
      const runtime = await runtimeOf(home);
      const res = await fetch(`${runtime.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await readFile(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'logs.json')) });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      await mkdir(join(home, 'queue'), { recursive: true });
      await appendFile(join(home, 'queue', 'outbox.jsonl'), JSON.stringify(INVENTORY) + '\n');
      await waitFor(async () => (await statusOf(runtime.socket)).received.outbox === 1, 20_000, 'the outbox record to be consumed');

      d.child.kill('SIGKILL');
      await d.exited;
      assert.equal(await readFile(file, 'utf8').catch(() => ''), '', 'nothing was delivered before the crash');

      d = startObserverDaemon(home);
      await waitFor(() => d.output().includes('listening on'), 30_000, 'the daemon to restart');
      await waitFor(async () => {
        const text = await readFile(file, 'utf8').catch(() => '');
        return text.includes('agent.skill.loaded') && text.includes('agent.skill.inventory.changed');
      }, 20_000, 'the acknowledged export and the outbox record in the file');
      const envelopes = [];
      for (const line of (await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('resourceLogs'))) {
        envelopes.push(...logsRequestToEnvelopes((await decodeOtlpRequest('logs', Buffer.from(line), 'json')) as OtlpLogsRequest));
      }
      assert.equal(envelopes.filter((e) => e.event_name === 'agent.skill.inventory.changed').length, 1, 'the outbox record is delivered once');
      d.child.kill('SIGTERM');
      assert.equal(await d.exited, 0);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await tmp.cleanup();
    }
  });
});
