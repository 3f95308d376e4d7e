import { strict as assert } from 'node:assert';
import { mkdir, readFile, readdir, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, outbox, rootContents, type InstallSandbox } from '../../../test-support/skit-install.js';

const AGENTS = 'windsurf,cline';

describe('sf add skit / sf skit install|enable|disable|update|remove|list (generic agents, end to end)', () => {
  let sb: InstallSandbox;
  let windsurf: string;
  let cline: string;
  beforeEach(async () => {
    sb = await installSandbox();
    windsurf = join(sb.project, '.windsurf', 'skills');
    cline = join(sb.project, '.agents', 'skills');
  });
  afterEach(() => sb.cleanup());

  it('installs for two agents, then disables, enables, updates and removes, recording every change in the outbox', async () => {
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes']);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^installed acme\/kit [0-9a-f]{12} \(project /m);
    const [rec] = await sb.list();
    assert.equal(rec.skitId, 'acme/kit');
    assert.deepEqual(rec.targets.map((t) => t.agent), ['windsurf', 'cline']);
    for (const root of [windsurf, cline]) {
      const contents = await rootContents(root);
      assert.deepEqual(Object.keys(contents), ['lint', 'review', 'summarize']);
      assert.ok(contents.review.startsWith(join(sb.sfHome, 'store')));
    }
    // the shared mapping is materialized into the child the host sees
    assert.equal(await readFile(join(windsurf, 'review', 'references', 'style', 'guide.md'), 'utf8'), '# Style one\n');

    const off = await sb.sf(['skit', 'disable', 'acme/kit:review']);
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(Object.keys(await rootContents(windsurf)), ['lint', 'summarize']);
    assert.deepEqual(Object.keys(await rootContents(cline)), ['lint', 'summarize']);
    const on = await sb.sf(['skit', 'enable', 'acme/kit:review', '--agent', 'windsurf']);
    assert.equal(on.code, 0, on.stderr);
    assert.deepEqual(Object.keys(await rootContents(windsurf)), ['lint', 'review', 'summarize']);
    assert.deepEqual(Object.keys(await rootContents(cline)), ['lint', 'summarize']);

    await writeTree(sb.source, kitTree('two', ['review', 'summarize']));
    await import('node:fs/promises').then((fs) => fs.rm(join(sb.source, 'skills', 'lint'), { recursive: true }));
    const up = await sb.sf(['skit', 'update']);
    assert.equal(up.code, 0, up.stderr);
    const [updated] = await sb.list();
    assert.notEqual(updated.bundleHash, rec.bundleHash);
    assert.deepEqual(Object.keys(await rootContents(windsurf)), ['review', 'summarize']);
    assert.deepEqual(Object.keys(await rootContents(cline)), ['summarize']);
    assert.match(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /two/);
    // the old release left the store
    assert.deepEqual((await readdir(join(sb.sfHome, 'store'))).filter((n) => n !== '.staging'), [updated.bundleHash.slice(7)]);

    const rmOne = await sb.sf(['skit', 'remove', 'acme/kit', '--agent', 'cline']);
    assert.equal(rmOne.code, 0, rmOne.stderr);
    assert.deepEqual(await rootContents(cline), {});
    assert.deepEqual((await sb.list())[0].targets.map((t) => t.agent), ['windsurf']);
    const rmAll = await sb.sf(['skit', 'remove', 'acme/kit']);
    assert.equal(rmAll.code, 0, rmAll.stderr);
    assert.deepEqual(await rootContents(windsurf), {});
    assert.deepEqual(await sb.list(), []);
    assert.deepEqual((await readdir(join(sb.sfHome, 'store'))).filter((n) => n !== '.staging'), []);

    const events = await outbox(sb.sfHome);
    assert.deepEqual(
      events.map((e) => `${e.action}:${e.agent}`),
      ['installed:windsurf', 'installed:cline', 'disabled:windsurf', 'disabled:cline', 'enabled:windsurf', 'updated:windsurf', 'updated:cline', 'removed:cline', 'removed:windsurf'],
    );
    assert.equal(new Set(events.map((e) => e.event_id)).size, events.length);
    const disabled = events[2] as { skills: { id: string; enabled: boolean }[]; intervention: { type: string; skill_ids: string[] } };
    assert.deepEqual(disabled.skills.map((s) => [s.id, s.enabled]), [['acme/kit:review', false]]);
    assert.deepEqual(disabled.intervention, { type: 'disable_skill', reason_code: 'unknown', skill_ids: ['acme/kit:review'] });
    assert.equal((events[8] as { intervention: { type: string } }).intervention.type, 'uninstall_skill');
  });

  it('the `skit` of every --json result is the installation record exactly as `sf skit list --json` prints it', async () => {
    const listed = async () => JSON.parse((await sb.sf(['skit', 'list', '--json'])).stdout) as Record<string, unknown>[];
    const skitOf = async (args: string[]) => {
      const r = await sb.sf([...args, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const body = JSON.parse(r.stdout) as { skit?: unknown } | { skit?: unknown }[];
      return Array.isArray(body) ? body[0].skit : body.skit;
    };
    const added = await skitOf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes']);
    const [record] = await listed();
    assert.deepEqual(added, record);
    // a local directory names no release: left out, as the list leaves it out; the table's label and switches are there
    assert.ok(!('release' in record) && typeof record.releaseLabel === 'string' && typeof record.enabled === 'object', JSON.stringify(record));
    assert.deepEqual(await skitOf(['skit', 'disable', 'acme/kit:review']), (await listed())[0]);
    assert.deepEqual(await skitOf(['skit', 'enable', 'acme/kit:review']), (await listed())[0]);
    await writeTree(sb.source, kitTree('two'));
    assert.deepEqual(await skitOf(['skit', 'update']), (await listed())[0]);
    assert.deepEqual(await skitOf(['skit', 'remove', 'acme/kit', '--agent', 'cline']), (await listed())[0]);
  });

  it('`sf add skit` and `sf skit install` are the same command: identical output and state', async () => {
    const other = await installSandbox();
    try {
      const a = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes', '--json']);
      const b = await other.sf(['skit', 'install', other.source, '--agent', AGENTS, '--yes', '--json']);
      const norm = (text: string, s: InstallSandbox) => text.split(s.root).join('<ROOT>').replace(/"(installedAt|updatedAt|fingerprint)": "[^"]+"/g, '"$1": "<X>"').replace(/provisional\/[0-9a-f]{16}/g, '<P>');
      assert.equal(a.code, 0, a.stderr);
      assert.equal(norm(a.stdout, sb), norm(b.stdout, other));
      assert.equal(norm(a.stderr, sb), norm(b.stderr, other));
      assert.equal(b.code, a.code);
      const human = await sb.sf(['skit', 'list']);
      const humanB = await other.sf(['skit', 'list']);
      assert.equal(norm(human.stdout, sb), norm(humanB.stdout, other));
      // the records name each sandbox's own project (project_root): compared with the root normalized
      const eventsA = (await outbox(sb.sfHome)).map(({ event_id: _, timestamp: __, ...rest }) => norm(JSON.stringify(rest), sb));
      const eventsB = (await outbox(other.sfHome)).map(({ event_id: _, timestamp: __, ...rest }) => norm(JSON.stringify(rest), other));
      assert.deepEqual(eventsA, eventsB);
      assert.deepEqual(await rootContents(windsurf).then((c) => norm(JSON.stringify(c), sb)), await rootContents(join(other.project, '.windsurf', 'skills')).then((c) => norm(JSON.stringify(c), other)));
      // human output of both commands is identical too (reinstall: unchanged)
      const ha = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes']);
      const hb = await other.sf(['skit', 'install', other.source, '--agent', AGENTS, '--yes']);
      assert.equal(norm(ha.stdout, sb), norm(hb.stdout, other));
      assert.match(ha.stdout, /already installed/);
    } finally {
      await other.cleanup();
    }
  });

  it('refuses a skill directory Forge does not own, changing nothing and never exposing a disabled child', async () => {
    await mkdir(join(windsurf, 'summarize'), { recursive: true });
    await writeFile(join(windsurf, 'summarize', 'SKILL.md'), 'mine');
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes']);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /SF_E_NAME_COLLISION/);
    assert.match(r.stderr, /summarize/);
    assert.deepEqual(await rootContents(windsurf), { summarize: 'dir' });
    assert.deepEqual(await rootContents(cline), {});
    assert.deepEqual(await sb.list(), []);
    assert.equal(await readFile(join(windsurf, 'summarize', 'SKILL.md'), 'utf8'), 'mine');

    // a disabled child may sit where a foreign directory is: it is never projected there
    await writeTree(sb.source, { 'README.md': (await readFile(join(sb.source, 'README.md'), 'utf8')).replace(/(name: summarize\n.*\n)    default_enabled: true/, '$1    default_enabled: false') });
    const ok = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(await readFile(join(windsurf, 'summarize', 'SKILL.md'), 'utf8'), 'mine');
    const enable = await sb.sf(['skit', 'enable', 'acme/kit:summarize']);
    assert.equal(enable.code, 4);
    assert.match(enable.stderr, /SF_E_NAME_COLLISION/);
  });

  it('rolls back what it did when a later step fails', async () => {
    // a file where cline's skill root must go makes the second projection fail
    await writeFile(join(sb.project, '.agents'), 'not a directory');
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /EEXIST|ENOTDIR/);
    // windsurf was projected first and taken back
    assert.deepEqual(await rootContents(windsurf), {});
    assert.deepEqual(await sb.list(), []);
    assert.deepEqual(await outbox(sb.sfHome), []);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
  });

  it('refuses a mistyped SF_PROJECTION_MODE before changing anything (it never quietly links instead of copying)', async () => {
    for (const mode of ['COPY', 'copies', 'hardlink']) {
      const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_PROJECTION_MODE: mode } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`SF_E_USAGE\\]: SF_PROJECTION_MODE must be copy, symlink or auto, not "${mode}"`));
    }
    assert.deepEqual(await sb.list(), []);
    assert.deepEqual(await rootContents(windsurf), {});
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_PROJECTION_MODE: 'auto' } })).code, 0);
  });

  it('update refuses to overwrite locally modified copies and names them; --force overwrites', async () => {
    const env = { SF_PROJECTION_MODE: 'copy' };
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env })).code, 0);
    assert.equal((await rootContents(windsurf)).review, 'dir');
    await appendFile(join(windsurf, 'review', 'SKILL.md'), 'my local note\n');
    await writeTree(sb.source, kitTree('two'));
    const refused = await sb.sf(['skit', 'update', 'acme/kit'], { env });
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /SF_E_MODIFIED/);
    assert.match(refused.stderr, /review\/SKILL\.md/);
    assert.match(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /my local note/);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 1);
    assert.ok((JSON.parse(doctor.stdout) as { findings: { code: string }[] }).findings.some((f) => f.code === 'SF_DRIFT_MODIFIED'));
    const forced = await sb.sf(['skit', 'update', 'acme/kit', '--force'], { env });
    assert.equal(forced.code, 0, forced.stderr);
    const text = await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8');
    assert.match(text, /two/);
    assert.doesNotMatch(text, /my local note/);
  });

  it('an update that drops a disabled skill takes its host entry out too; remove then gives the config back', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review'])).code, 0);
    const settings = join(sb.project, '.claude', 'settings.local.json');
    assert.deepEqual(JSON.parse(await readFile(settings, 'utf8')).skillOverrides, { lint: 'off', review: 'off' });
    // the next release has no lint skill
    await rm(join(sb.source, 'skills', 'lint'), { recursive: true });
    await writeFile(join(sb.source, 'README.md'), (await readFile(join(sb.source, 'README.md'), 'utf8')).replace(/  - name: lint\n(    .*\n)*/, ''));
    const update = await sb.sf(['skit', 'update', 'acme/kit']);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(JSON.parse(await readFile(settings, 'utf8')).skillOverrides, { review: 'off' }, 'lint\'s entry went with the skill');
    assert.equal((await sb.sf(['skit', 'remove', 'acme/kit'])).code, 0);
    await assert.rejects(stat(settings), 'the file Forge created is gone again');
  });

  it('update puts a deleted store entry back, so the links into it work again (doctor says so)', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'])).code, 0);
    const store = join(sb.sfHome, 'store');
    const [entry] = (await readdir(store)).filter((n) => !n.startsWith('.'));
    await rm(join(store, entry), { recursive: true });
    const doctor = await sb.sf(['skit', 'doctor']);
    assert.match(doctor.stdout, /SF_DRIFT_STORE_MISSING[^\n]*\n\s+hint: .*`sf skit update acme\/kit`/);
    const update = await sb.sf(['skit', 'update', 'acme/kit']);
    assert.equal(update.code, 0, update.stderr);
    assert.match(update.stdout, /put the release back into the store/);
    assert.match(await readFile(join(windsurf, 'review', 'SKILL.md'), 'utf8'), /name: review/);
    const after = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(after.code, 0, after.stdout);
  });

  it('Codex and an agent without a switch share .agents/skills: a skill disabled for both is simply not there', async () => {
    await writeFile(join(sb.source, 'README.md'), (await readFile(join(sb.source, 'README.md'), 'utf8')).replace(/(name: lint\n(?:    .*\n)*?    default_enabled: )true/, '$1false'));
    const root = join(sb.project, '.agents', 'skills');
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'codex,cursor', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(Object.keys(await rootContents(root)).sort(), ['review', 'summarize']);
    assert.equal((await sb.sf(['skit', 'enable', 'acme/kit:lint'])).code, 0);
    assert.ok((await rootContents(root)).lint);
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:review']);
    assert.equal(disable.code, 0, disable.stderr);
    assert.equal((await rootContents(root)).review, undefined);
    assert.equal((await sb.sf(['skit', 'doctor'])).code, 0);
    // without cursor, Codex alone switches review off in place again
    assert.equal((await sb.sf(['skit', 'remove', 'acme/kit', '--agent', 'cursor'])).code, 0);
    assert.ok((await rootContents(root)).review);
    assert.match(await readFile(join(sb.home, '.codex', 'config.toml'), 'utf8'), /review\/SKILL\.md"\nenabled = false/);
    const doctor = await sb.sf(['skit', 'doctor']);
    assert.equal(doctor.code, 0, doctor.stdout);
  });

  it('doctor warns when another SKIT in the user scope has a Claude Code skill of the same name (skillOverrides go by name)', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--scope', 'user', '--yes'])).code, 0);
    const other = join(sb.root, 'other');
    await writeTree(other, { ...kitTree('two', ['review']), 'README.md': kitTree('two', ['review'])['README.md'].replace('id: acme/kit', 'id: acme/other') });
    assert.equal((await sb.sf(['add', 'skit', other, '--agent', 'claude-code', '--yes'])).code, 0);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    const shadows = (JSON.parse(doctor.stdout) as { findings: { code: string; skitId: string; message: string }[] }).findings.filter((f) => f.code === 'SF_ADAPTER_NAME_SHADOW');
    // each reaches the other: doctor runs in the project, where Claude Code reads both roots
    assert.deepEqual(shadows.map((f) => f.skitId).sort(), ['acme/kit', 'acme/other'], doctor.stdout);
    assert.match(shadows.find((f) => f.skitId === 'acme/other')?.message ?? '', /installed by Forge in the user scope/);
    assert.match(shadows.find((f) => f.skitId === 'acme/kit')?.message ?? '', /installed by Forge in the project scope/);
  });

  it('install and disable warn at once, not only doctor, when a skill of the user\'s shares a name Forge\'s by-name switch reaches', async () => {
    // the user's own "lint" in the user scope: Claude Code's skillOverrides key it by name too
    await writeTree(join(sb.home, '.claude', 'skills', 'lint'), { 'SKILL.md': '---\nname: lint\ndescription: my own lint skill, not Forge\'s. Use it to lint.\n---\n\n# lint\n' });
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes', '--json']);
    assert.equal(add.code, 0, add.stderr);
    const warned = (out: string) => (JSON.parse(out).diagnostics as { code: string; file?: string }[]).filter((d) => d.code === 'SF_ADAPTER_NAME_SHADOW');
    assert.deepEqual(warned(add.stdout).map((d) => d.file), [join(sb.home, '.claude', 'skills', 'lint')], add.stdout);
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:lint']);
    assert.equal(disable.code, 0, disable.stderr);
    assert.match(disable.stderr, /SF_ADAPTER_NAME_SHADOW[\s\S]*skillOverrides apply by name to both/);
  });

  it('warns when OpenCode, on the machine but not a target, can load a skill disabled in .claude/skills', async () => {
    await mkdir(join(sb.home, '.config', 'opencode'), { recursive: true });
    await writeFile(join(sb.home, '.config', 'opencode', 'opencode.json'), '{}\n');
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--json']);
    assert.equal(disable.code, 0, disable.stderr);
    assert.deepEqual(JSON.parse(disable.stdout).diagnostics.map((d: { code: string }) => d.code), ['SF_ADAPTER_EXPOSED_TO_HOST']);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    const found = (JSON.parse(doctor.stdout) as { findings: { code: string; message: string; hint?: string }[] }).findings.filter((f) => f.code === 'SF_ADAPTER_EXPOSED_TO_HOST');
    assert.equal(found.length, 1, doctor.stdout);
    assert.match(found[0].message, /acme\/kit:lint is disabled for claude-code, but OpenCode also loads skills from .*\.claude\/skills/);
    assert.match(found[0].hint ?? '', /--agent opencode/);
    // once OpenCode is a target, Forge denies the skill there too
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'opencode', '--yes'])).code, 0);
    const after = await sb.sf(['skit', 'doctor', '--json']);
    assert.ok(!after.stdout.includes('SF_ADAPTER_EXPOSED_TO_HOST'), after.stdout);
  });

  it('defaults to the detected agents, and asks for --agent when none is detected', async () => {
    const none = await sb.sf(['add', 'skit', sb.source, '--yes']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no agent was detected/);
    assert.match(none.stderr, /--agent/);
    const unknown = await sb.sf(['add', 'skit', sb.source, '--agent', 'notepad', '--yes']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /SF_E_UNKNOWN_AGENT/);
    await mkdir(join(sb.home, '.codeium', 'windsurf'), { recursive: true });
    const detected = await sb.sf(['add', 'skit', sb.source, '--yes', '--json']);
    assert.equal(detected.code, 0, detected.stderr);
    assert.deepEqual((JSON.parse(detected.stdout) as { skit: { targets: { agent: string }[] } }).skit.targets.map((t) => t.agent), ['windsurf']);
    // user scope outside a project
    const user = await sb.sf(['add', 'skit', sb.source, '--yes', '--scope', 'user'], { cwd: sb.home });
    assert.equal(user.code, 0, user.stderr);
    assert.deepEqual(Object.keys(await rootContents(join(sb.home, '.codeium', 'windsurf', 'skills'))), ['lint', 'review', 'summarize']);
    assert.equal((await sb.list()).length, 2);
  });

  it('keeps $SF_HOME private (0700) when an archive install is the first command to create it', async () => {
    const tgz = join(sb.root, 'kit.tgz');
    const pack = await sb.sf(['skit', 'pack', sb.source, '-o', tgz]);
    assert.equal(pack.code, 0, pack.stderr);
    await rm(sb.sfHome, { recursive: true, force: true });
    const add = await sb.sf(['add', 'skit', tgz, '--agent', AGENTS, '--yes']);
    assert.equal(add.code, 0, add.stderr);
    for (const dir of [sb.sfHome, join(sb.sfHome, 'tmp')]) assert.equal((await stat(dir)).mode & 0o777, 0o700, dir);
  });

  it('suggests the agent, SKIT or skill a typo meant', async () => {
    const agent = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsrf', '--yes']);
    assert.equal(agent.code, 2);
    assert.match(agent.stderr, /unknown agent "windsrf" \(did you mean "windsurf"\?\)/);
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS, '--yes'])).code, 0);
    const id = await sb.sf(['skit', 'remove', 'acme/kti']);
    assert.equal(id.code, 3);
    assert.match(id.stderr, /acme\/kti is not installed in project .* \(did you mean "acme\/kit"\?\)/);
    const skill = await sb.sf(['skit', 'disable', 'acme/kit:reveiw']);
    assert.equal(skill.code, 3);
    assert.match(skill.stderr, /acme\/kit has no skill "reveiw" \(did you mean "review"\?\)/);
    const far = await sb.sf(['skit', 'remove', 'zeta/other']);
    assert.doesNotMatch(far.stderr, /did you mean/);
  });
});
