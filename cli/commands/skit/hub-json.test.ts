import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { liveHub, ok, type LiveHub, type Person } from '../../../hub/acceptance/support.js';
import { scaffoldSkit } from '../../../core/skit/scaffold.js';
import { writeTree } from '../../../test-support/index.js';

/** Every null anywhere in a JSON value, by path. */
function nulls(value: unknown, at = '$'): string[] {
  if (value === null) return [at];
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => nulls(v, `${at}.${k}`));
}

/**
 * The hub commands' JSON and errors, against a real hub on 127.0.0.1 with the built CLI: no
 * `null` where docs/cli-json.md promises none, hints that fit where the token came from and
 * where the findings are.
 */
describe('hub commands: JSON without nulls, and hints that fit (cliux D6, D8)', function () {
  this.timeout(120_000);
  let live: LiveHub;
  let alice: Person;
  before(async () => {
    live = await liveHub();
    alice = await live.person('alice');
  });
  after(() => live?.close());

  it('sf login --json and sf skit publish --json print no null field (the hub sends deprecated: null, quarantined: null)', async () => {
    const login = ok(await alice.sf(['login', '--hub', live.hub.url, '--json'], { input: `${live.token('alice')}\n` }), 'login');
    assert.deepEqual(nulls(JSON.parse(login.stdout)), []);
    const kit = join(alice.home, 'kit');
    await writeTree(kit, scaffoldSkit({ id: 'alice/kit' }));
    const published = JSON.parse(ok(await alice.sf(['skit', 'publish', kit, '--version', '1.0.0', '--json']), 'publish').stdout);
    assert.equal(published.release.version, '1.0.0');
    assert.deepEqual(nulls(published), []);
    assert.equal('deprecated' in published.release, false);
  });

  it('a rejected SF_HUB_TOKEN is named in the hint, with "set it or unset it", not "run sf login again" (which it would override)', async () => {
    ok(await alice.sf(['login', '--hub', live.hub.url], { input: `${live.token('alice')}\n` }), 'login');
    const stale = { SF_HUB_TOKEN: 'sfp_staletokenstaletokenstaletoken' };
    for (const args of [['skit', 'list', '--remote'], ['login', '--hub', live.hub.url]]) {
      const r = await alice.sf(args, { env: stale });
      assert.equal(r.code, 8, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /error\[SF_E_AUTH\]/);
      assert.match(r.stderr, /hint: the rejected token came from SF_HUB_TOKEN, .*set SF_HUB_TOKEN to a valid token, or unset it/, args.join(' '));
      assert.doesNotMatch(r.stderr, /run `sf login/);
    }
    ok(await alice.sf(['skit', 'list', '--remote']), 'the stored login still works');
  });

  it('sf skit publish --json of an invalid SKIT points at error.data.diagnostics, not at "the errors above"', async () => {
    const bad = join(alice.home, 'bad');
    await writeTree(bad, { 'README.md': '---\nskit: 1\nid: Not Valid\n---\n' });
    const r = await alice.sf(['skit', 'publish', bad, '--version', '1.0.0', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const { error } = JSON.parse(r.stderr);
    assert.equal(error.code, 'SF_E_VALIDATION');
    assert.match(error.hint, /error\.data\.diagnostics/);
    assert.ok(error.data.diagnostics.length > 0);
    const text = await alice.sf(['skit', 'publish', bad, '--version', '1.0.0']);
    assert.match(text.stderr, /hint: fix the errors above/);
  });
});
