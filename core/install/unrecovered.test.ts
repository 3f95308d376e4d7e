import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, writeTree } from '../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../test-support/skit-install.js';

/**
 * A command that fails where nothing can be written must not leave an undo nothing can ever do,
 * and an interrupted command whose recovery fails must not stop commands on other installations.
 */
describe('failed commands and recoveries that cannot finish', () => {
  let sb: InstallSandbox;
  let other: string;
  let kit2: string;
  beforeEach(async () => {
    sb = await installSandbox('sf-unrecovered-');
    other = join(sb.root, 'other');
    await mkdir(join(other, '.git'), { recursive: true });
    kit2 = join(sb.root, 'kit2');
    await writeTree(kit2, kitTree('one', ['alpha', 'beta']));
    const readme = join(kit2, 'README.md');
    await writeFile(readme, (await readFile(readme, 'utf8')).replace('id: acme/kit', 'id: acme/kit2'));
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    assert.equal(add.code, 0, add.stderr);
  });
  afterEach(() => sb.cleanup());

  /** Runs `script` with `run NAME ARGS...` (sf, outputs in $OUT/NAME.*) in a private user and mount namespace; null without user namespaces. */
  function inNamespace(script: string): ((name: string) => Promise<string>) | null {
    const out = join(sb.root, 'out');
    const sh = `set -u\nmkdir -p "$OUT"\nrun() { name=$1; shift; node "$SF" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.code"; }\n${script}`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', sh], { env: { ...process.env, ...sb.env, OUT: out, SF: sfBin, NO_COLOR: '1', PROJECT: sb.project, OTHER: other, KIT2: kit2 }, encoding: 'utf8' });
    if (r.error || r.status === 99) return null;
    assert.equal(r.status, 0, r.stderr);
    return (name) => readFile(join(out, name), 'utf8');
  }

  it('a disable in a read-only project fails, leaves nothing to recover, and other projects go on', async function () {
    this.timeout(60_000);
    const claude = join(sb.project, '.claude');
    const beforeNames = await readdir(claude);
    const read = inNamespace([
      'mount --bind "$PROJECT/.claude" "$PROJECT/.claude" && mount -o remount,bind,ro "$PROJECT/.claude" || exit 99',
      'cd "$PROJECT" && run disable skit disable acme/kit:lint',
      'cd "$OTHER" && run other add skit "$KIT2" --agent claude-code --yes',
      'run doctor skit doctor --json',
    ].join('\n'));
    if (!read) this.skip();
    assert.equal((await read('disable.code')).trim(), '10');
    const err = await read('disable.err');
    // the file and directory to act on, not the random name of a lock file that never existed
    assert.match(err, /error\[SF_E_IO\]: cannot edit \S+\/\.claude\/settings\.local\.json: no lock file can be created in \S+\/\.claude \(EROFS: read-only file system\)/);
    assert.doesNotMatch(err, /sf-lock|could not undo/);
    assert.deepEqual(await readdir(claude), beforeNames, 'nothing was written');

    assert.equal((await read('other.code')).trim(), '0', await read('other.err'));
    assert.doesNotMatch(await read('other.err'), /interrupted|sf-lock/);
    const doctor = JSON.parse(await read('doctor.out')) as { clean: boolean; findings: unknown[] };
    assert.equal(doctor.clean, true, JSON.stringify(doctor.findings));
    assert.deepEqual((await sb.list()).map((r) => r.skitId).sort(), ['acme/kit', 'acme/kit2']);
    assert.ok(!existsSync(join(claude, 'settings.local.json')));
  });
  it('an interrupted command whose recovery fails is reported, other installations go ahead, and its own installation says why it waits', async function () {
    this.timeout(60_000);
    // a disable killed after it wrote settings.local.json, which the user then breaks: neither
    // finishing nor undoing the disable can edit it
    const killed = await sb.sf(['skit', 'disable', 'acme/kit:lint'], { env: { SF_CRASH_AT: 'disable:after-enablement' } });
    assert.equal(killed.code, -1, killed.stderr);
    const settings = join(sb.project, '.claude', 'settings.local.json');
    await writeFile(settings, '{ "skillOverrides": ');
    const stuck = new RegExp(`an interrupted disable of acme/kit in ${sb.project.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be recovered: .*settings\\.local\\.json`);

    for (const args of [['add', 'skit', kit2, '--agent', 'claude-code', '--yes'], ['add', 'skit', kit2, '--agent', 'windsurf', '--scope', 'user', '--yes']]) {
      const r = await sb.sf(args, { cwd: other });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`warning: ${stuck.source}`));
      assert.match(r.stderr, /hint: .*; once that is done, `sf skit doctor --fix` finishes the interrupted disable \(commands on other installations go ahead meanwhile\)/);
    }
    assert.deepEqual((await sb.list()).map((r) => r.skitId).sort(), ['acme/kit', 'acme/kit2', 'acme/kit2']);

    const same = await sb.sf(['skit', 'enable', 'acme/kit:lint']);
    assert.notEqual(same.code, 0);
    assert.match(same.stderr, new RegExp(`^error\\[SF_E_CONFIG\\]: ${stuck.source}`, 'm'));
    assert.doesNotMatch(same.stderr, /warning:/);

    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(fix.code, 1, fix.stderr);
    const report = JSON.parse(fix.stdout) as { findings: { code: string; message: string; fixed?: boolean; hint?: string }[] };
    const interrupted = report.findings.filter((f) => f.code === 'SF_DRIFT_INTERRUPTED');
    assert.equal(interrupted.length, 1, fix.stdout);
    assert.match(interrupted[0].message, stuck);
    assert.ok(!interrupted[0].fixed);

    // once the file parses again, the next --fix finishes the disable
    await writeFile(settings, '{}\n');
    const again = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const check = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(check.code, 0, check.stdout);
    const kit = (await sb.list()).find((r) => r.skitId === 'acme/kit')!;
    assert.deepEqual(kit.enablement, { lint: { '*': false } });
  });
  it('while an interrupted command waits for recovery, doctor says its installation\'s findings are the recovery\'s to resolve', async function () {
    this.timeout(60_000);
    await writeTree(sb.source, kitTree('two'));
    const killed = await sb.sf(['skit', 'update', 'acme/kit'], { env: { SF_CRASH_AT: 'update:after-project' } });
    assert.equal(killed.code, -1, killed.stderr);
    const look = await sb.sf(['skit', 'doctor', '--json']);
    const findings = (JSON.parse(look.stdout) as { findings: { code: string; hint?: string; skitId?: string }[] }).findings;
    assert.ok(findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED'), look.stdout);
    // the new release the update stored is the one recovery rolls forward to: never "delete it"
    assert.ok(!findings.some((f) => f.code === 'SF_DRIFT_STORE_UNREFERENCED'), look.stdout);
    const about = findings.filter((f) => f.skitId === 'acme/kit');
    assert.ok(about.length > 0, look.stdout);
    for (const f of about) assert.match(f.hint ?? '', /^this follows from the interrupted update of acme\/kit in \S+: `sf skit doctor --fix` recovers it and resolves this/, JSON.stringify(f));
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    const check = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(check.code, 0, check.stdout);
  });
});
