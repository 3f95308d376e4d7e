import assert from 'node:assert/strict';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';
import { HostSessionSource, MAX_LOOKUPS_PER_REQUEST, hostSessionIds, type HostSessionLookup } from './host-sessions.js';

const A = 'aaaaaaaa-1111-4222-8333-444444444444';
const B = 'bbbbbbbb-1111-4222-8333-444444444444';

const logs = (service: string, scope: string, ids: string[]): OtlpLogsRequest => ({
  signal: 'logs',
  resources: [{ resource: { attributes: { 'service.name': service } }, scopes: [{ scope: { name: scope }, items: ids.map((id) => ({ timeUnixNano: '0', observedTimeUnixNano: '0', attributes: { 'session.id': id } })) }] }],
});
const claude = (...ids: string[]) => logs('claude-code', 'com.anthropic.claude_code.events', ids);

/** A registry stand-in that records what the source did, and a lookup whose answers the test sets. */
function world(retry = { attempts: 3, cooldownMs: 60_000 }) {
  const known = new Map<string, string>();
  const touched: string[] = [];
  const asked: string[] = [];
  const cwds = new Map<string, string>();
  let now = 0;
  const lookup: HostSessionLookup = { host: 'claude-code', attribute: 'session.id', find: async (id) => {
    asked.push(id);
    const cwd = cwds.get(id);
    return cwd ? { cwd } : undefined;
  } };
  const source = new HostSessionSource(lookup, {
    touch: (host, id) => (known.has(`${host}|${id}`) ? (touched.push(id), true) : false),
    register: async (host, id, found) => void known.set(`${host}|${id}`, found.cwd),
  }, retry, () => now);
  return { known, touched, asked, cwds, source, tick: (ms: number) => (now += ms) };
}

describe('host session registration from the hosts\' own records', () => {
  it('picks the session ids of one host only (by service name or scope)', () => {
    assert.deepEqual(hostSessionIds(claude(A, A, B), 'claude-code', 'session.id'), [A, B]);
    assert.deepEqual(hostSessionIds(logs('', 'com.anthropic.claude_code.events', [A]), 'claude-code', 'session.id'), [A]);
    assert.deepEqual(hostSessionIds(logs('codex_exec', 'codex_otel', [A]), 'claude-code', 'session.id'), []);
  });

  it('looks up a bounded number of unknown sessions per request; the rest wait for a later request', async () => {
    const w = world();
    const ids = Array.from({ length: 200 }, (_, i) => `cccccccc-1111-4222-8333-${String(i).padStart(12, '0')}`);
    await w.source.registerFrom(claude(...ids));
    assert.equal(w.asked.length, MAX_LOOKUPS_PER_REQUEST, 'one request costs a bounded number of lookups');
    await w.source.registerFrom(claude(...ids));
    assert.equal(new Set(w.asked).size, 2 * MAX_LOOKUPS_PER_REQUEST, 'the next request looks up the ones not looked up yet');
  });

  it('registers a session whose record appears on a later request, then only touches it', async () => {
    const w = world();
    await w.source.registerFrom(claude(A));
    assert.equal(w.known.size, 0, 'no record yet');
    w.cwds.set(A, '/work/proj');
    await w.source.registerFrom(claude(A));
    assert.deepEqual([...w.known], [['claude-code|' + A, '/work/proj']]);
    await w.source.registerFrom(claude(A));
    assert.deepEqual(w.asked, [A, A], 'a known session is not looked up again');
    assert.deepEqual(w.touched, [A], 'its telemetry refreshes it');
  });

  it('bounds the retries of a miss, then retries once per cooldown (a miss is never final)', async () => {
    const w = world();
    for (let i = 0; i < 10; i++) await w.source.registerFrom(claude(B));
    assert.equal(w.asked.length, 3);
    w.tick(30_000);
    await w.source.registerFrom(claude(B));
    assert.equal(w.asked.length, 3, 'within the cooldown');
    w.tick(31_000);
    w.cwds.set(B, '/late');
    await w.source.registerFrom(claude(B));
    assert.equal(w.asked.length, 4);
    assert.equal(w.known.get('claude-code|' + B), '/late');
  });

  it('looks a session up again once the registry has dropped it, and never looks up an id that is not one', async () => {
    const w = world();
    w.cwds.set(A, '/a');
    await w.source.registerFrom(claude(A, '../../etc/passwd', 'x'));
    w.known.clear(); // pruned after its TTL
    await w.source.registerFrom(claude(A));
    assert.deepEqual(w.asked, [A, A]);
    assert.equal(w.known.get('claude-code|' + A), '/a');
  });
});
