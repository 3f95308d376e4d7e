import { strict as assert } from 'node:assert';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { liveHub, ok, type LiveHub, type Person } from '../../../hub/acceptance/support.js';
import { scaffoldSkit } from '../../../core/skit/scaffold.js';
import { writeTree } from '../../../test-support/index.js';

/**
 * A hub install follows a caret range, as an npm dependency does: `^<the version installed>`.
 * `update` takes the newest release in it and says when a new major version is beyond it (a real
 * hub on 127.0.0.1, the built CLI).
 */
describe('hub installs follow a caret range (D8, O8)', function () {
  this.timeout(120_000);
  let live: LiveHub;
  let alice: Person;
  let kit: string;
  const publish = async (version: string, line: string) => {
    await writeTree(kit, { 'skills/review/SKILL.md': `---\nname: review\ndescription: Review a change. Use when asked for a review.\n---\n\n# Review\n\n${line}\n` });
    ok(await alice.sf(['skit', 'publish', kit, '--version', version]), `publish ${version}`);
  };
  const project = async (name: string) => {
    const dir = join(alice.home, name);
    await mkdir(join(dir, '.git'), { recursive: true });
    return dir;
  };
  before(async () => {
    live = await liveHub();
    alice = await live.person('alice');
    ok(await alice.sf(['login', '--hub', live.hub.url], { input: `${live.token('alice')}\n` }), 'login');
    kit = join(alice.home, 'kit');
    await writeTree(kit, scaffoldSkit({ id: 'alice/kit' }));
    for (const [version, line] of [['1.0.0', 'Look at the diff.'], ['1.0.1', 'Also check the tests.'], ['2.0.0', 'Label every finding.']]) await publish(version, line);
  });
  after(() => live?.close());

  type Listed = { release: { version: string }; source: { canonical: string; range?: string }; range?: string; pinned?: unknown };

  it('update takes minor and patch releases within ^<installed>, not a new major; --version latest crosses; a downgrade across a major stays', async () => {
    const cwd = await project('proj');
    const sf = (...args: string[]) => alice.sf(args, { cwd });
    const listed = async () => JSON.parse(ok(await sf('skit', 'list', '--json'), 'list').stdout)[0] as Listed;

    ok(await sf('add', 'skit', 'alice/kit@1.0.0', '--agent', 'claude-code', '--yes'), 'add @1.0.0');
    let record = await listed();
    assert.equal(record.source.canonical, `${live.hub.url}/s/alice/kit`);
    assert.equal(record.source.range, '^1.0.0');
    assert.equal(record.range, '^1.0.0');
    assert.equal(record.pinned, undefined);
    assert.match(ok(await sf('skit', 'list'), 'list').stdout, /alice\/kit\s+1\.0\.0 \(\^1\.0\.0\)\s+project /);

    // a patch release is picked up; 2.0.0 is beyond the range and named
    const patch = ok(await sf('skit', 'update'), 'update');
    assert.match(patch.stdout, /^updated alice\/kit 1\.0\.1 \(project /m);
    const newer = 'alice/kit: 2.0.0 is available, a new major version beyond ^1.0.0 (which may change what its skills do), so `sf skit update` does not move to it; to take it: sf skit update alice/kit --version 2.0.0 (or --version latest)';
    assert.ok(patch.stdout.includes(newer), patch.stdout);
    assert.equal((await listed()).source.range, '^1.0.0', 'the range stays as recorded');
    const again = JSON.parse(ok(await sf('skit', 'update', '--json'), 'update --json').stdout) as { action: string; notes: string[] }[];
    assert.equal(again[0].action, 'unchanged');
    assert.deepEqual(again[0].notes, ['alice/kit is up to date (1.0.1, range ^1.0.0)', newer]);

    // a minor release published later is picked up too
    await publish('1.1.0', 'Check the docs as well.');
    assert.match(ok(await sf('skit', 'update'), 'update').stdout, /^updated alice\/kit 1\.1\.0 \(project /m);

    const latest = ok(await sf('skit', 'update', 'alice/kit', '--version', 'latest'), 'update --version latest');
    assert.match(latest.stdout, /^updated alice\/kit 2\.0\.0 \(project /m);
    assert.ok(latest.stdout.includes('alice/kit follows ^2.0.0 now (>=2.0.0 <3.0.0): `sf skit update` takes its newest release in that range'), latest.stdout);
    assert.ok(latest.stdout.includes('alice/kit: 1.1.0 -> 2.0.0 is a new major version, which may change what its skills do; to go back: sf skit update alice/kit --version 1.1.0'), latest.stdout);
    record = await listed();
    assert.deepEqual([record.release.version, record.range], ['2.0.0', '^2.0.0']);

    const back = ok(await sf('skit', 'update', 'alice/kit', '--version', '1.0.1'), 'update --version 1.0.1');
    assert.match(back.stdout, /^downgraded alice\/kit 1\.0\.1 \(project /m);
    assert.ok(back.stdout.includes('alice/kit follows ^1.0.1 now (>=1.0.1 <2.0.0)'), back.stdout);
    const stays = ok(await sf('skit', 'update'), 'update');
    assert.match(stays.stdout, /^updated alice\/kit 1\.1\.0 \(project /m);
    record = await listed();
    assert.deepEqual([record.release.version, record.range], ['1.1.0', '^1.0.1'], 'a routine update does not undo the move back across the major');
  });

  it('sf add skit owner/name installs the latest release and records ^<it>', async () => {
    const cwd = await project('proj2');
    ok(await alice.sf(['add', 'skit', 'alice/kit', '--agent', 'claude-code', '--yes'], { cwd }), 'add');
    const record = JSON.parse(ok(await alice.sf(['skit', 'list', '--json'], { cwd }), 'list').stdout).find((r: Listed & { projectRoot?: string }) => r.projectRoot === cwd) as Listed;
    assert.deepEqual([record.release.version, record.source.range], ['2.0.0', '^2.0.0']);
  });

  it('a caret range asked for (owner/name@^1, --version ^2) is followed as asked, as npm does; other range syntaxes are refused', async () => {
    const cwd = await project('proj3');
    const sf = (...args: string[]) => alice.sf(args, { cwd });
    const listed = async () => (JSON.parse(ok(await sf('skit', 'list', '--json'), 'list').stdout) as (Listed & { projectRoot?: string })[]).find((r) => r.projectRoot === cwd)!;

    const added = ok(await sf('add', 'skit', 'alice/kit@^1', '--agent', 'claude-code', '--yes'), 'add @^1');
    assert.match(added.stdout, /^installed alice\/kit 1\.1\.0 /m);
    assert.ok(added.stdout.includes('alice/kit: 2.0.0 is available, a new major version beyond ^1.0.0'), added.stdout);
    let record = await listed();
    assert.deepEqual([record.release.version, record.range], ['1.1.0', '^1.0.0'], 'the range asked for is recorded, not ^<the release taken>');

    const moved = ok(await sf('skit', 'update', 'alice/kit', '--version', '^2'), 'update --version ^2');
    assert.match(moved.stdout, /^updated alice\/kit 2\.0\.0 /m);
    record = await listed();
    assert.deepEqual([record.release.version, record.range], ['2.0.0', '^2.0.0']);

    const none = await sf('skit', 'update', 'alice/kit', '--version', '^3');
    assert.equal(none.code, 3, none.stderr);
    assert.ok(none.stderr.includes('SF_E_NOT_FOUND') && none.stderr.includes('alice/kit has no installable release within ^3.0.0 (>=3.0.0 <4.0.0)'), none.stderr);
    for (const [asked, hint] of [['~1.0', 'caret range'], ['>=1.0.0', 'caret range'], ['1.x', 'caret range'], ['^0', 'name the lowest release']]) {
      const refused = await sf('skit', 'update', 'alice/kit', '--version', asked);
      assert.equal(refused.code, 2, `${asked}: ${refused.stderr}`);
      assert.ok(refused.stderr.includes(`"${asked}" is not a version or range Forge can follow`) && refused.stderr.includes(hint), refused.stderr);
    }
    assert.deepEqual([(await listed()).release.version], ['2.0.0'], 'nothing changed');
  });

  it('the hint to install for another host that can load a disabled skill keeps the installed release (not the latest)', async () => {
    const cwd = await project('proj4');
    const sf = (...args: string[]) => alice.sf(args, { cwd });
    await writeTree(join(alice.home, '.config', 'opencode'), { 'opencode.json': '{}\n' });
    ok(await sf('add', 'skit', 'alice/kit@1.0.1', '--agent', 'claude-code', '--yes'), 'add @1.0.1');
    const disabled = JSON.parse(ok(await sf('skit', 'disable', 'alice/kit:review', '--json'), 'disable').stdout) as { diagnostics: { code: string; hint?: string }[] };
    const exposed = disabled.diagnostics.find((d) => d.code === 'SF_ADAPTER_EXPOSED_TO_HOST');
    const command = `sf add skit ${live.hub.url}/r/alice/kit/1.0.1 --agent opencode`;
    assert.ok(exposed?.hint?.includes(command), JSON.stringify(disabled.diagnostics));
    // the hint, run as given, adds the host and leaves the release where it was
    ok(await sf(...command.split(' ').slice(1), '--yes'), 'the hinted command');
    const record = (JSON.parse(ok(await sf('skit', 'list', '--json'), 'list').stdout) as (Listed & { projectRoot?: string; targets: { agent: string }[] })[]).find((r) => r.projectRoot === cwd)!;
    assert.deepEqual([record.release.version, record.targets.map((t) => t.agent).sort()], ['1.0.1', ['claude-code', 'opencode']]);
    assert.ok(!ok(await sf('skit', 'doctor', '--json'), 'doctor').stdout.includes('SF_ADAPTER_EXPOSED_TO_HOST'));
  });
});
