import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaffoldSkit } from '../../core/skit/scaffold.js';
import { writeTree } from '../../test-support/index.js';
import { liveHub, modeOf, ok, type LiveHub, type Person } from './support.js';

describe('hub acceptance: Stage 1 exit criterion, end to end over HTTP with the built CLI', function () {
  this.timeout(120_000);
  let live: LiveHub;
  let author: Person;
  let user: Person;
  let authorToken: string;
  before(async () => {
    live = await liveHub();
    author = await live.person('author');
    user = await live.person('user');
    authorToken = live.token('alice');
  });
  after(() => live?.close());

  it('login stores the token 0600 and never prints it', async () => {
    const r = ok(await author.sf(['login', '--hub', live.hub.url], { input: `${authorToken}\n` }), 'sf login');
    assert.match(r.stdout, /logged in to http:\/\/127\.0\.0\.1:\d+ as alice/);
    assert.ok(!r.stdout.includes(authorToken) && !r.stderr.includes(authorToken));
    const file = join(author.env.SF_HOME!, 'credentials.json');
    assert.equal(await modeOf(file), 0o600);
    assert.equal(JSON.parse(await readFile(file, 'utf8')).hubs[live.hub.url].token, authorToken);
    const bad = await author.sf(['login', '--hub', live.hub.url], { input: 'sfp_notarealtokennotarealtoken\n' });
    assert.equal(bad.code, 8);
    assert.ok(!bad.stderr.includes('sfp_notarealtoken'));
  });

  it('an author publishes a two-skill SKIT; another user installs the exact release, disables one skill, and doctor verifies it against the hub', async () => {
    const kit = join(author.home, 'kit');
    await writeTree(kit, scaffoldSkit({ id: 'alice/kit' }));
    const published = ok(await author.sf(['skit', 'publish', kit, '--version', '1.0.0', '--json']), 'sf skit publish');
    const release = JSON.parse(published.stdout).release;
    assert.equal(release.skills.length, 2);
    const local = JSON.parse(ok(await author.sf(['skit', 'hash', kit, '--json']), 'sf skit hash').stdout);
    assert.equal(release.bundleHash, local.bundle);

    ok(await user.sf(['login', '--hub', live.hub.url], { input: live.token('bob', ['registry:read']) }), 'user login');
    const installed = ok(await user.sf(['add', 'skit', 'alice/kit@1.0.0', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json']), 'sf add skit');
    const record = JSON.parse(installed.stdout).skit;
    assert.equal(record.skitId, 'alice/kit');
    assert.equal(record.release.version, '1.0.0');
    assert.equal(record.bundleHash, release.bundleHash);
    assert.deepEqual(record.skills.map((s: { id: string; hash: string }) => [s.id, s.hash]), release.skills.map((s: { id: string; hash: string }) => [s.id, s.hash]));
    const skillMd = await readFile(join(user.home, '.claude/skills/review/SKILL.md'), 'utf8');
    assert.equal(skillMd, await readFile(join(kit, 'skills/review/SKILL.md'), 'utf8'));
    assert.ok((await readFile(join(user.home, '.claude/skills/review/references/style/guide.md'), 'utf8')).startsWith('# Style guide'), 'shared mapping materialized');

    ok(await user.sf(['skit', 'disable', 'alice/kit:summarize', '--scope', 'user']), 'sf skit disable');
    const listed = JSON.parse(ok(await user.sf(['skit', 'list', '--json']), 'sf skit list').stdout);
    assert.equal(listed[0].enabled['alice/kit:summarize']['claude-code'], false);
    assert.equal(listed[0].enabled['alice/kit:review']['claude-code'], true);

    const doctor = JSON.parse(ok(await user.sf(['skit', 'doctor', '--json']), 'sf skit doctor').stdout);
    const verified = doctor.findings.find((f: { code: string }) => f.code === 'SF_HUB_VERIFIED');
    assert.ok(verified, JSON.stringify(doctor.findings));
    assert.match(verified.message, /bundle and 2 skill hashes match/);
    assert.equal(doctor.clean, true);
  });

  it('installs from the immutable release URL, pulls with verification, lists remotely, and updates to a new release', async () => {
    const viaUrl = await live.person('url-user');
    ok(await viaUrl.sf(['login', '--hub', live.hub.url], { input: live.token('carol', ['registry:read']) }), 'login');
    const r = ok(await viaUrl.sf(['add', 'skit', `${live.hub.url}/r/alice/kit/1.0.0`, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json']), 'add by URL');
    assert.equal(JSON.parse(r.stdout).skit.release.version, '1.0.0');

    const pulled = ok(await user.sf(['skit', 'pull', 'alice/kit@1.0.0', '--out', join(user.home, 'pulled'), '--json']), 'sf skit pull');
    assert.equal(JSON.parse(pulled.stdout).version, '1.0.0');
    assert.equal(await readFile(join(user.home, 'pulled/README.md'), 'utf8'), await readFile(join(author.home, 'kit/README.md'), 'utf8'));

    const remote = JSON.parse(ok(await user.sf(['skit', 'list', '--remote', '--json']), 'list --remote').stdout);
    assert.deepEqual(remote.skits.map((s: { id: string; latestVersion: string }) => [s.id, s.latestVersion]), [['alice/kit', '1.0.0']]);

    const kit = join(author.home, 'kit');
    await writeTree(kit, { 'skills/review/SKILL.md': '---\nname: review\ndescription: Review a change, now with severity labels. Use when asked for a review.\n---\n\n# Review\n\nLabel every finding.\n' });
    ok(await author.sf(['skit', 'publish', kit, '--version', '1.1.0']), 'publish 1.1.0');
    const updated = JSON.parse(ok(await user.sf(['skit', 'update', 'alice/kit', '--scope', 'user', '--json']), 'sf skit update').stdout);
    assert.equal(updated[0].action, 'updated');
    assert.equal(updated[0].skit.release.version, '1.1.0');
    assert.match(await readFile(join(user.home, '.claude/skills/review/SKILL.md'), 'utf8'), /Label every finding/);
    const doctor = JSON.parse(ok(await user.sf(['skit', 'doctor', '--json']), 'doctor after update').stdout);
    assert.ok(doctor.findings.some((f: { code: string; message: string }) => f.code === 'SF_HUB_VERIFIED' && f.message.includes('@1.1.0')));
  });

  it('refuses to publish an invalid SKIT, and the hub keeps nothing', async () => {
    const bad = join(author.home, 'bad');
    await writeTree(bad, { ...scaffoldSkit({ id: 'alice/bad' }), 'skills/summarize/SKILL.md': '---\nname: Wrong Name\n---\n' });
    const r = await author.sf(['skit', 'publish', bad, '--version', '1.0.0']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /nothing was published/);
    assert.equal(live.hub.storage.registry.getSkit('alice/bad'), undefined);
  });

  it('publishes a single-skill SKIT (a SKILL.md at its root) that another user installs by its hub id', async () => {
    const dir = join(author.home, 'greeter');
    await writeTree(dir, { 'SKILL.md': '---\nname: greeter\ndescription: Says hello. Use it when greeting.\n---\n\nSay hello.\n' });
    ok(await author.sf(['skit', 'publish', dir, '--id', 'alice/greeter', '--version', '0.1.0', '--json']), 'sf skit publish (single skill)');
    const installed = ok(await user.sf(['add', 'skit', 'alice/greeter@0.1.0', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json']), 'sf add skit (single skill)');
    assert.deepEqual(JSON.parse(installed.stdout).skit.skills.map((s: { id: string }) => s.id), ['alice/greeter:greeter']);
    assert.match(await readFile(join(user.home, '.claude/skills/greeter/SKILL.md'), 'utf8'), /Say hello/);
  });
});
