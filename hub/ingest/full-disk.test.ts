import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, tempDir } from '../../test-support/index.js';

/**
 * OTLP ingest on a full disk (reliability-anchors #61, #69): a batch the hub cannot store is
 * answered 503 SF_E_DISK_FULL with Retry-After, a heartbeat (an export with no records, whose only
 * write is its health row) is answered as usual, nothing rejects unhandled (which would end
 * `sf hub serve`), no request hangs, and ingest works again once there is space. A real hub over
 * real storage on a full tmpfs, in a private user and mount namespace (no root needed).
 */
const SCRIPT = (repo: string) => `
import { openSync, writeSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
const { telemetryFixture } = await import(${JSON.stringify(join(repo, 'hub/test-support/telemetry-fixture.ts'))});
const { encodeOtlpRequest } = await import(${JSON.stringify(join(repo, 'core/telemetry/otlp/index.ts'))});
const { logsRequest, skillRecord } = await import(${JSON.stringify(join(repo, 'hub/test-support/otlp-builders.ts'))});
let unhandled = 0;
process.on('unhandledRejection', (e) => { unhandled++; console.error('unhandled rejection:', e); });
const f = await telemetryFixture();
const u = f.user('alice');
const filler = join(process.env.TMPDIR, 'filler');
const fd = openSync(filler, 'w');
try { for (const b = Buffer.alloc(4096); ; ) writeSync(fd, b); } catch {}
closeSync(fd);
const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const batch = (i) => logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'e' + i, 'agent.skill.activation.id': 'a' + i, 'agent.skill.id': 'o/k:a' }, T0 + i)]);
const out = { heartbeats: {}, batches: {}, messages: new Set(), unhandled: 0, after: 0 };
const count = (m, k) => (m[k] = (m[k] ?? 0) + 1);
for (let i = 0; i < 40; i++) {
  // no records: the health row (one per instance) is all it writes
  const hb = await f.post('logs', await encodeOtlpRequest(logsRequest([], { 'service.name': 'claude-code', 'service.instance.id': 'inst-' + i + '-' + 'x'.repeat(100) }), 'protobuf'), { auth: u.device });
  await hb.arrayBuffer();
  count(out.heartbeats, String(hb.status));
  const r = await f.post('logs', await encodeOtlpRequest(batch(i), 'json'), { auth: u.device, encoding: 'json' });
  count(out.batches, r.status + ' retry-after ' + r.headers.get('retry-after'));
  out.messages.add(JSON.parse(await r.text()).message);
}
rmSync(filler);
const again = await f.post('logs', await encodeOtlpRequest(batch(1000), 'protobuf'), { auth: u.device });
out.after = again.status;
out.unhandled = unhandled;
console.log(JSON.stringify({ ...out, messages: [...out.messages] }));
process.exit(0);
`;

describe('hub OTLP ingest on a full disk', () => {
  it('answers 503 SF_E_DISK_FULL with Retry-After, keeps answering heartbeats, and neither dies nor hangs', async function () {
    this.timeout(60_000);
    const tmp = await tempDir('sf-hub-full-');
    try {
      const mount = join(tmp.path, 'fs');
      await mkdir(mount);
      const script = join(tmp.path, 'ingest.mts');
      await writeFile(script, SCRIPT(repoRoot));
      const sh = `mount -t tmpfs -o size=2m tmpfs "${mount}" || exit 99\nexec "${process.execPath}" --import tsx "${script}"`;
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', sh], { cwd: repoRoot, env: { ...process.env, TMPDIR: mount }, encoding: 'utf8', timeout: 50_000 });
      if (r.error?.message.includes('ENOENT') || r.status === 99) this.skip(); // no user namespaces here
      assert.equal(r.status, 0, `the hub died or hung (status ${r.status}, signal ${r.signal}): ${r.stderr.slice(-2000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { heartbeats: Record<string, number>; batches: Record<string, number>; messages: string[]; unhandled: number; after: number };
      assert.equal(out.unhandled, 0, r.stderr.slice(-2000));
      assert.deepEqual(out.heartbeats, { 200: 40 });
      assert.deepEqual(out.batches, { '503 retry-after 60': 40 });
      assert.deepEqual(out.messages, ['the hub is out of disk space and could not store the telemetry (retry after the Retry-After delay)']);
      assert.equal(out.after, 200);
    } finally {
      await tmp.cleanup();
    }
  });
});
