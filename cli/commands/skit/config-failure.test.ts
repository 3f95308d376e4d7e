import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Library } from '../../../core/library/db.js';
import { sfPaths } from '../../../core/library/paths.js';
import { sfBin, writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * A host config that cannot be edited must fail the command with nothing changed, for every
 * agent, and leave no journal intent that a later `doctor --fix` could turn into the change the
 * user was told had failed.
 */
describe('sf skit commands when a host config cannot be edited', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-config-failure-')));
  afterEach(() => sb.cleanup());

  const settings = () => join(sb.project, '.claude', 'settings.local.json');
  const readOr = (file: string) => readFile(file, 'utf8').catch(() => '(absent)');
  const enabledFor = async (skill: string) => (await sb.list())[0].enabled[`acme/kit:${skill}`];
  const doctorCodes = async () => {
    const r = await sb.sf(['skit', 'doctor', '--json']);
    return (JSON.parse(r.stdout) as { findings: { code: string }[] }).findings.map((f) => f.code);
  };

  it('checks every agent’s config before changing any: a broken Codex config.toml leaves Claude Code’s settings alone', async () => {
    await mkdir(join(sb.project, '.claude'), { recursive: true });
    await writeFile(settings(), '{\n  "model": "opus"\n}\n');
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,codex', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    const codexConfig = join(sb.home, '.codex', 'config.toml');
    await mkdir(join(sb.home, '.codex'), { recursive: true });
    await writeFile(codexConfig, 'model = "o3\n');

    const r = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code,codex']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFIG\]: .*config\.toml:1:/);
    assert.doesNotMatch(r.stderr, /could not undo/);
    assert.equal(await readOr(settings()), '{\n  "model": "opus"\n}\n', 'Claude Code settings untouched');
    assert.deepEqual(await enabledFor('lint'), { 'claude-code': true, codex: true });
    assert.ok(!(await doctorCodes()).includes('SF_DRIFT_INTERRUPTED'), 'no intent left behind');

    // once the file parses, the same command works
    await writeFile(codexConfig, 'model = "o3"\n');
    const again = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code,codex']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await enabledFor('lint'), { 'claude-code': false, codex: false });
  });

  it('remove checks the configs first too: a settings.json that does not parse stops it before any link is gone', async () => {
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,windsurf', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code'])).code, 0);
    await writeFile(settings(), '{ broken');
    const r = await sb.sf(['skit', 'remove', 'acme/kit']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFIG\]: .*settings\.local\.json/);
    assert.doesNotMatch(r.stderr, /could not undo/);
    for (const root of ['.claude', '.windsurf']) {
      assert.match(await readFile(join(sb.project, root, 'skills', 'review', 'SKILL.md'), 'utf8'), /name: review/, `${root} links untouched`);
    }
    assert.ok(!(await doctorCodes()).includes('SF_DRIFT_INTERRUPTED'), 'no intent left behind');
  });

  it('doctor --fix repairs what it can when one repair needs the user, and reports both (exit 1, --json intact)', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,opencode', '--yes'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint'])).code, 0);
    await writeFile(settings(), '{"skillOverrides": {"lint": "on"}}\n');
    // the user's own "*": "allow" after Forge's deny: only they can settle that
    await writeFile(join(sb.project, 'opencode.json'), '{"permission": {"skill": {"lint": "deny", "*": "allow"}}}\n');
    const r = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout) as { clean: boolean; findings: { code: string; agent?: string; fixed?: boolean }[] };
    assert.equal(report.clean, false);
    assert.ok(report.findings.some((f) => f.code === 'SF_DOCTOR_FIX_FAILED' && f.agent === 'opencode' && !f.fixed), r.stdout);
    assert.ok(report.findings.some((f) => f.agent === 'claude-code' && f.fixed), r.stdout);
    assert.match(await readOr(settings()), /"lint": "off"/);
  });

  it('a failed enable leaves no intent, so a later doctor --fix cannot apply it after all', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code'])).code, 0);
    await writeFile(settings(), '{\n  "skillOverrides": {"lint": "off",\n}\n');
    const r = await sb.sf(['skit', 'enable', 'acme/kit:lint', '--agent', 'claude-code']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFIG\]/);
    await writeFile(settings(), '{\n  "skillOverrides": {"lint": "off"}\n}\n');
    const fix = await sb.sf(['skit', 'doctor', '--fix']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    assert.deepEqual(await enabledFor('lint'), { 'claude-code': false });
    assert.match(await readOr(settings()), /"lint": "off"/);
  });

  it('doctor --fix puts back Forge\'s "off" for a disabled skill when someone switched it on in the config', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code'])).code, 0);
    await writeFile(settings(), (await readOr(settings())).replace('"lint": "off"', '"lint": "on"'));
    assert.deepEqual(await doctorCodes(), ['SF_DRIFT_DISABLED_EXPOSED']);
    const fix = await sb.sf(['skit', 'doctor', '--fix']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    assert.match(await readOr(settings()), /"lint": "off"/);
    assert.deepEqual(await doctorCodes(), []);
  });

  it('recovery only undoes a command that failed and could not undo itself (phase rolling-back)', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    // a disable killed after its config edit: the intent is left in `applying`
    const crashed = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'claude-code'], { env: { SF_CRASH_AT: 'disable:after-enablement' } });
    assert.notEqual(crashed.code, 0);
    // as if it had failed instead, and its undo had failed too
    const lib = (await Library.open(sfPaths(sb.env), { create: false }))!;
    const [intent] = lib.listIntents();
    assert.equal(intent.phase, 'applying');
    lib.commit({ putIntent: { ...intent, phase: 'rolling-back' } });
    await lib.close();

    const doctor = await sb.sf(['skit', 'doctor']);
    assert.match(doctor.stdout, /SF_DRIFT_INTERRUPTED .*failed and could not be undone completely/);
    const fix = await sb.sf(['skit', 'doctor', '--fix']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    assert.deepEqual(await enabledFor('lint'), { 'claude-code': true }, 'the old state, not the failed change');
    assert.doesNotMatch(await readOr(settings()), /"lint"/);
  });

  it('a step that fails after writing config entries takes them back (read-only skill directory)', async function () {
    this.timeout(30_000);
    // lint is off by default, so the install writes skillOverrides before projecting directories
    const tree = kitTree();
    tree['README.md'] = tree['README.md'].replace(/(name: lint\n {4}path: skills\/lint\n {4}default_enabled: )true/, '$1false');
    await writeTree(sb.source, tree);
    const original = '{\n  "model": "opus"\n}\n';
    await mkdir(join(sb.project, '.claude', 'skills'), { recursive: true });
    await writeFile(settings(), original);
    const script = `
      mount --bind .claude/skills .claude/skills && mount -o remount,bind,ro .claude/skills || exit 99
      node "$SF" add skit "$KIT" --agent claude-code --yes > "$OUT.out" 2> "$OUT.err"; echo $? > "$OUT.code"
    `;
    const out = join(sb.root, 'add');
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { cwd: sb.project, env: { ...process.env, ...sb.env, SF: sfBin, KIT: sb.source, OUT: out }, encoding: 'utf8' });
    if (r.error || r.status === 99) this.skip(); // no user namespaces here
    assert.equal(r.status, 0, r.stderr);
    assert.equal((await readFile(`${out}.code`, 'utf8')).trim(), '10', await readFile(`${out}.err`, 'utf8'));
    assert.match(await readFile(`${out}.err`, 'utf8'), /error\[SF_E_IO\]: rename failed/);
    assert.equal(await readOr(settings()), original, 'Forge’s skillOverrides entry was taken back');
    assert.deepEqual(await sb.list(), []);
    assert.deepEqual(await doctorCodes(), []);
  });
});
