import { strict as assert } from 'node:assert';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { liveHub, ok, type LiveHub, type Person } from '../../../hub/acceptance/support.js';
import { scaffoldSkit } from '../../../core/skit/scaffold.js';
import { writeTree } from '../../../test-support/index.js';

/** A hub install's version is a pin when it was asked for, as a git ref is (a real hub on 127.0.0.1, the built CLI). */
describe('sf add skit owner/name@version pins the install (D8, O8)', function () {
  this.timeout(120_000);
  let live: LiveHub;
  let alice: Person;
  let project: string;
  before(async () => {
    live = await liveHub();
    alice = await live.person('alice');
    ok(await alice.sf(['login', '--hub', live.hub.url], { input: `${live.token('alice')}\n` }), 'login');
    const kit = join(alice.home, 'kit');
    await writeTree(kit, scaffoldSkit({ id: 'alice/kit' }));
    for (const [version, line] of [['1.0.0', ''], ['1.0.1', 'Also check the tests.'], ['2.0.0', 'Label every finding.']]) {
      if (line) await writeTree(kit, { 'skills/review/SKILL.md': `---\nname: review\ndescription: Review a change. Use when asked for a review.\n---\n\n# Review\n\n${line}\n` });
      ok(await alice.sf(['skit', 'publish', kit, '--version', version]), `publish ${version}`);
    }
    project = join(alice.home, 'proj');
    await mkdir(join(project, '.git'), { recursive: true });
  });
  after(() => live?.close());

  const sf = (...args: string[]) => alice.sf(args, { cwd: project });
  const listed = async () => JSON.parse(ok(await sf('skit', 'list', '--json'), 'list').stdout)[0] as { release: { version: string }; source: { canonical: string }; pinned?: string };

  it('update keeps a pinned version, --version moves and re-pins it, --version latest unpins; list shows the pin', async () => {
    const added = ok(await sf('add', 'skit', 'alice/kit@1.0.0', '--agent', 'claude-code', '--yes'), 'add @1.0.0');
    assert.match(added.stdout, /alice\/kit is pinned to 1\.0\.0: `sf skit update` keeps it there \(`sf skit update alice\/kit --version latest` follows the latest release again\)/);
    let record = await listed();
    assert.equal(record.source.canonical, `${live.hub.url}/r/alice/kit/1.0.0`);
    assert.equal(record.pinned, '1.0.0');
    assert.match(ok(await sf('skit', 'list'), 'list').stdout, /alice\/kit\s+1\.0\.0 \(pinned\)\s+project /);

    const stays = ok(await sf('skit', 'update'), 'update');
    assert.match(stays.stdout, /^alice\/kit is up to date \(1\.0\.0, pinned\)$/m);
    assert.equal((await listed()).release.version, '1.0.0');

    const latest = ok(await sf('skit', 'update', 'alice/kit', '--version', 'latest'), 'update --version latest');
    assert.match(latest.stdout, /alice\/kit is no longer pinned to 1\.0\.0/);
    assert.match(latest.stdout, /alice\/kit: 1\.0\.0 -> 2\.0\.0 is a new major version, which may change what its skills do; to go back and stay on 1\.0\.0: sf skit update alice\/kit --version 1\.0\.0/);
    record = await listed();
    assert.equal(record.release.version, '2.0.0');
    assert.equal(record.source.canonical, `${live.hub.url}/s/alice/kit`);
    assert.equal(record.pinned, undefined);

    const back = ok(await sf('skit', 'update', 'alice/kit', '--version', '1.0.1'), 'update --version 1.0.1');
    assert.match(back.stdout, /^downgraded alice\/kit 1\.0\.1 \(project /m);
    assert.match(back.stdout, /alice\/kit is pinned to 1\.0\.1/);
    ok(await sf('skit', 'update'), 'update');
    assert.equal((await listed()).release.version, '1.0.1', 'a routine update does not undo the choice');
  });
});
