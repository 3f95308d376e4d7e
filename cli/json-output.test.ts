import assert from 'node:assert/strict';
import { installSandbox, type InstallSandbox } from '../test-support/skit-install.js';

/** Every path in `value` whose value is null. */
const nullsIn = (value: unknown, at = ''): string[] =>
  value === null ? [at] : typeof value === 'object' ? Object.entries(value as object).flatMap(([k, v]) => nullsIn(v, `${at}.${k}`)) : [];

/**
 * docs/cli-json.md: an optional field is left out when unknown, never null, unless documented as
 * nullable (D17).
 */
describe('--json output leaves unknown fields out instead of printing null', () => {
  let sb: InstallSandbox;
  before(async () => (sb = await installSandbox('sf-json-')));
  after(() => sb.cleanup());

  it('sf skit list: a SKIT installed from a local directory has no release field, not {}', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    const r = await sb.sf(['skit', 'list', '--json']);
    const [record] = JSON.parse(r.stdout) as Record<string, unknown>[];
    assert.equal('release' in record, false, JSON.stringify(record));
    assert.equal(typeof record.releaseLabel, 'string');
    assert.deepEqual(nullsIn(record), []);
  });

  it('sf skit remove: no skit field once nothing stays installed', async () => {
    const r = await sb.sf(['skit', 'remove', 'acme/kit', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['action', 'skitId', 'agents']);
    assert.deepEqual(nullsIn(out), []);
  });

  it('sf skit agents: an agent with legacy homes lists them, in the table too', async () => {
    const r = await sb.sf(['skit', 'agents', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { id: string; user: string | null; legacyUser?: string[] }[];
    assert.deepEqual(rows.find((a) => a.id === 'openclaw')?.legacyUser, ['~/.clawdbot/skills', '~/.moltbot/skills']);
    assert.equal('legacyUser' in rows.find((a) => a.id === 'claude-code')!, false);
    const table = await sb.sf(['skit', 'agents']);
    assert.match(table.stdout, /^openclaw .*~\/\.openclaw\/skills \(or ~\/\.clawdbot\/skills, ~\/\.moltbot\/skills\)/m);
  });

  it('sf logout: no loggedOut field when there was no login', async () => {
    const r = await sb.sf(['logout', '--hub', 'http://127.0.0.1:9', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {});
  });

  it('sf observe status: no service field when no service is installed, no counters while the observer is not running', async () => {
    assert.equal((await sb.sf(['observe', 'destination', 'add', 'local', `file:${sb.root}/obs.jsonl`])).code, 0);
    const r = await sb.sf(['observe', 'status', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal('service' in out, false);
    assert.deepEqual(out.destinations, [{ name: 'local', type: 'file', target: `file ${sb.root}/obs.jsonl`, droppedBy: {} }]);
    assert.deepEqual(nullsIn(out), []);
  });
});
