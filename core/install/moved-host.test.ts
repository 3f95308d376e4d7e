import { strict as assert } from 'node:assert';
import { appendFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, kitTree, rootContents, type InstallSandbox } from '../../test-support/skit-install.js';
import { writeTree } from '../../test-support/index.js';

/**
 * A native host whose skill directory or config file moved since the install (CLAUDE_CONFIG_DIR,
 * CODEX_HOME changed): enable/disable stop while planning, doctor reports the move and --fix writes
 * nothing into the new place, update moves the installation, remove removes it where it is
 * recorded, and a rollback puts it back where the record says it is. Real CLI, real files.
 */

const readOr = (file: string) => readFile(file, 'utf8').catch(() => null);

interface Doctor {
  clean: boolean;
  findings: { code: string; agent?: string; message: string; hint?: string; fixed?: boolean; file?: string }[];
}

/** Everything a command could have changed: the records and both places. */
async function snapshot(sb: InstallSandbox, files: string[], roots: string[]): Promise<unknown> {
  const records = (await sb.list()).map((r) => ({ ...r, updatedAt: undefined }));
  return { records, files: await Promise.all(files.map(readOr)), roots: await Promise.all(roots.map(rootContents)) };
}

/** The names of the store's entries (one per stored release). */
async function storeEntries(sb: InstallSandbox): Promise<string[]> {
  return (await readdir(join(sb.sfHome, 'store'))).filter((n) => /^[0-9a-f]{64}$/.test(n));
}

describe('a Claude Code installation whose skill directory moved (CLAUDE_CONFIG_DIR changed since the install)', function () {
  this.timeout(90_000);
  let sb: InstallSandbox;
  let a: string;
  let b: string;
  const atA = () => ({ CLAUDE_CONFIG_DIR: a });
  const atB = () => ({ CLAUDE_CONFIG_DIR: b });
  const places = () => snapshot(sb, [join(a, 'settings.json'), join(b, 'settings.json')], [join(a, 'skills'), join(b, 'skills')]);

  beforeEach(async () => {
    sb = await installSandbox('sf-moved-claude-');
    await writeTree(sb.source, kitTree('one', ['review', 'lint']));
    [a, b] = [join(sb.home, 'claude-a'), join(sb.home, 'claude-b')];
    await mkdir(a, { recursive: true });
    await mkdir(b, { recursive: true });
    const add = await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'claude-code', '--yes'], { env: atA() });
    assert.equal(add.code, 0, add.stderr);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user'], { env: atA() })).code, 0);
  });
  afterEach(() => sb.cleanup());

  for (const [verb, skill] of [['disable', 'lint'], ['enable', 'review']] as const) {
    it(`${verb} stops while planning, names both directories and CLAUDE_CONFIG_DIR, and changes nothing`, async () => {
      const before = await places();
      const r = await sb.sf(['skit', verb, `acme/kit:${skill}`, '--scope', 'user'], { env: atB() });
      assert.equal(r.code, 4, r.stdout + r.stderr);
      assert.match(r.stderr, /error\[SF_E_CONFLICT\]: cannot (en|dis)able acme\/kit:\w+: Claude Code now reads skills from .*claude-b\/skills \(CLAUDE_CONFIG_DIR=.*claude-b\), not from .*claude-a\/skills/);
      assert.match(r.stderr, /hint: .*sf skit update acme\/kit --scope user/);
      assert.match(r.stderr, /or, to keep it where it is, run sf with CLAUDE_CONFIG_DIR=\S*claude-a\b/);
      assert.deepEqual(await places(), before);
      const doctor = JSON.parse((await sb.sf(['skit', 'doctor', '--json'], { env: atB() })).stdout) as Doctor;
      assert.ok(!doctor.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED'), 'no intent left behind');
    });
  }

  it("refuses the same way (not as a name collision, not mid-apply) when the user's own skill of that name is in the new directory", async () => {
    await mkdir(join(b, 'skills', 'review'), { recursive: true });
    await writeFile(join(b, 'skills', 'review', 'SKILL.md'), 'mine\n');
    const before = await places();
    const r = await sb.sf(['skit', 'enable', 'acme/kit:review', '--scope', 'user'], { env: atB() });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFLICT\]: cannot enable acme\/kit:review: Claude Code now reads skills from/);
    assert.doesNotMatch(r.stderr, /could not undo|not managed by Forge/);
    assert.deepEqual(await places(), before);
    assert.equal(await readFile(join(b, 'skills', 'review', 'SKILL.md'), 'utf8'), 'mine\n');
  });

  it('doctor reports the move with the same hint, and --fix writes nothing into the new directory', async () => {
    const before = await places();
    const r = await sb.sf(['skit', 'doctor', '--json'], { env: atB() });
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout) as Doctor;
    const moved = report.findings.filter((f) => f.code === 'SF_DRIFT_HOST_MOVED');
    assert.equal(moved.length, 1, r.stdout);
    assert.equal(moved[0].agent, 'claude-code');
    assert.match(moved[0].message, /Claude Code now reads skills from .*claude-b\/skills \(CLAUDE_CONFIG_DIR=.*\), not from .*claude-a\/skills/);
    assert.match(moved[0].hint ?? '', /sf skit update acme\/kit --scope user/);
    // the recorded installation is intact where it is: no drift is made up from the new directory's settings
    assert.deepEqual(report.findings.map((f) => f.code), ['SF_DRIFT_HOST_MOVED'], r.stdout);

    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json'], { env: atB() });
    assert.equal(fix.code, 1, fix.stderr);
    const fixed = JSON.parse(fix.stdout) as Doctor;
    assert.ok(fixed.findings.some((f) => f.code === 'SF_DRIFT_HOST_MOVED' && !f.fixed), fix.stdout);
    assert.deepEqual(await places(), before);
  });

  it('doctor --fix repairs the installation where it is recorded, not in the new directory', async () => {
    await writeFile(join(a, 'settings.json'), '{}\n');
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json'], { env: atB() });
    const report = JSON.parse(fix.stdout) as Doctor;
    assert.ok(report.findings.some((f) => f.code === 'SF_DRIFT_DISABLED_EXPOSED' && f.fixed && f.file === join(a, 'settings.json')), fix.stdout);
    assert.deepEqual(JSON.parse((await readOr(join(a, 'settings.json')))!).skillOverrides, { review: 'off' });
    assert.equal(await readOr(join(b, 'settings.json')), null);
    assert.deepEqual(await rootContents(join(b, 'skills')), {});
    assert.equal((await sb.list())[0].targets[0].skillRoot, join(a, 'skills'));
  });

  it('update moves an up-to-date installation, with its switches, to the new directory; enable/disable work there after', async () => {
    const up = await sb.sf(['skit', 'update', 'acme/kit', '--scope', 'user'], { env: atB() });
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /moved from .*claude-a\/skills to .*claude-b\/skills/);
    assert.deepEqual(await rootContents(join(a, 'skills')), {});
    assert.deepEqual(Object.keys(await rootContents(join(b, 'skills'))), ['lint', 'review']);
    assert.deepEqual(JSON.parse((await readOr(join(b, 'settings.json')))!).skillOverrides, { review: 'off' });
    assert.doesNotMatch((await readOr(join(a, 'settings.json'))) ?? '', /review/);
    assert.equal((await sb.list())[0].targets[0].skillRoot, join(b, 'skills'));
    const dis = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--scope', 'user'], { env: atB() });
    assert.equal(dis.code, 0, dis.stderr);
    assert.deepEqual(JSON.parse((await readOr(join(b, 'settings.json')))!).skillOverrides, { review: 'off', lint: 'off' });
  });

  for (const verb of [['add', 'skit'], ['skit', 'install']]) {
    it(`\`sf ${verb.join(' ')}\` of the same source moves the up-to-date installation as update does, and says so`, async () => {
      const r = await sb.sf([...verb, sb.source, '--scope', 'user', '--agent', 'claude-code', '--yes'], { env: atB() });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /acme\/kit \(claude-code\): moved from .*claude-a\/skills to .*claude-b\/skills, where the agent reads skills now/);
      assert.deepEqual(await rootContents(join(a, 'skills')), {});
      assert.deepEqual(Object.keys(await rootContents(join(b, 'skills'))), ['lint', 'review']);
      assert.deepEqual(JSON.parse((await readOr(join(b, 'settings.json')))!).skillOverrides, { review: 'off' });
      assert.doesNotMatch((await readOr(join(a, 'settings.json'))) ?? '', /review/);
      assert.equal((await sb.list())[0].targets[0].skillRoot, join(b, 'skills'));
      assert.equal((await sb.sf(['skit', 'doctor'], { env: atB() })).code, 0);
    });
  }

  it('adding a new release for another agent moves the recorded Claude Code target too, leaving no links of the old release behind', async () => {
    await appendFile(join(sb.source, 'skills', 'lint', 'SKILL.md'), 'two\n');
    const r = await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'cursor', '--yes'], { env: atB() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /acme\/kit \(claude-code\): moved from .*claude-a\/skills to .*claude-b\/skills/);
    assert.deepEqual(await rootContents(join(a, 'skills')), {});
    const [rec] = await sb.list();
    assert.deepEqual(Object.keys(await rootContents(join(b, 'skills'))), ['lint', 'review']);
    assert.ok(Object.values(await rootContents(join(b, 'skills'))).every((l) => l.includes(rec.bundleHash.replace('sha256:', ''))), 'links into the new release');
    assert.deepEqual(rec.targets.find((t) => t.agent === 'claude-code')?.paths.map((p) => p.path).sort(), [join(b, 'skills', 'lint'), join(b, 'skills', 'review')]);
    assert.equal((await sb.sf(['skit', 'doctor'], { env: atB() })).code, 0);
  });

  it("remove takes out what is recorded in the old directory, leaves the new one (and the user's skill there) alone, and says where Claude Code reads now", async () => {
    await mkdir(join(b, 'skills', 'review'), { recursive: true });
    await writeFile(join(b, 'skills', 'review', 'SKILL.md'), 'mine\n');
    await writeFile(join(b, 'settings.json'), '{"skillOverrides": {"review": "off"}}\n');
    const r = await sb.sf(['skit', 'remove', 'acme/kit', '--scope', 'user'], { env: atB() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /claude-code: Claude Code now reads skills from .*claude-b\/skills .*; removed acme\/kit from .*claude-a\/skills, where it was installed/);
    assert.deepEqual(await rootContents(join(a, 'skills')), {});
    assert.doesNotMatch((await readOr(join(a, 'settings.json'))) ?? '', /review/);
    assert.deepEqual(await rootContents(join(b, 'skills')), { review: 'dir' });
    assert.equal(await readOr(join(b, 'settings.json')), '{"skillOverrides": {"review": "off"}}\n');
    assert.deepEqual(await sb.list(), []);
  });

  it('a rollback of an update that moved the directory puts the installation back where the record says it is', async () => {
    await appendFile(join(sb.source, 'skills', 'lint', 'SKILL.md'), 'two\n');
    const [old] = await storeEntries(sb);
    const crash = await sb.sf(['skit', 'update', 'acme/kit', '--scope', 'user'], { env: { ...atB(), SF_CRASH_AT: 'update:after-project' } });
    assert.notEqual(crash.code, 0);
    assert.deepEqual(Object.keys(await rootContents(join(b, 'skills'))), ['lint', 'review'], 'the crash came after the links moved');
    // the new release's store entry changed since: recovery cannot finish the update and undoes it
    const fresh = (await storeEntries(sb)).find((n) => n !== old)!;
    await appendFile(join(sb.sfHome, 'store', fresh, 'skills', 'lint', 'SKILL.md'), 'edited\n');
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json'], { env: atB() });
    const report = JSON.parse(fix.stdout) as Doctor;
    assert.ok(report.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED' && /rolled-back/.test(f.message)), fix.stdout);
    // the rollback itself put it back: no repair of doctor's was needed after it
    assert.deepEqual(report.findings.map((f) => f.code).filter((c) => c !== 'SF_DRIFT_INTERRUPTED'), ['SF_DRIFT_HOST_MOVED'], fix.stdout);
    const [rec] = await sb.list();
    assert.equal(rec.targets[0].skillRoot, join(a, 'skills'));
    assert.deepEqual(Object.keys(await rootContents(join(a, 'skills'))), ['lint', 'review'], 'the links are where the record says');
    assert.ok(Object.values(await rootContents(join(a, 'skills'))).every((l) => l.includes(old)), 'of the old release');
    assert.deepEqual(await rootContents(join(b, 'skills')), {});
    assert.deepEqual(JSON.parse((await readOr(join(a, 'settings.json')))!).skillOverrides, { review: 'off' });
    assert.doesNotMatch((await readOr(join(b, 'settings.json'))) ?? '', /review/);
    assert.deepEqual(rec.targets[0].paths.map((p) => p.path).sort(), [join(a, 'skills', 'lint'), join(a, 'skills', 'review')]);
  });
});

describe('a Codex installation whose config file moved (CODEX_HOME changed since the install)', function () {
  this.timeout(90_000);
  let sb: InstallSandbox;
  let a: string;
  let b: string;
  const atB = () => ({ CODEX_HOME: b });
  const root = () => join(sb.home, '.agents', 'skills');
  const places = () => snapshot(sb, [join(a, 'config.toml'), join(b, 'config.toml')], [root()]);

  /** A sandbox with acme/kit installed for Codex (user scope) with CODEX_HOME=<home>/codex-a, review disabled. */
  async function installedAtA(): Promise<InstallSandbox> {
    const s = await installSandbox('sf-moved-codex-');
    await writeTree(s.source, kitTree('one', ['review', 'lint']));
    await mkdir(join(s.home, 'codex-a'), { recursive: true });
    await mkdir(join(s.home, 'codex-b'), { recursive: true });
    const env = { CODEX_HOME: join(s.home, 'codex-a') };
    assert.equal((await s.sf(['add', 'skit', s.source, '--scope', 'user', '--agent', 'codex', '--yes'], { env })).code, 0);
    assert.equal((await s.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user'], { env })).code, 0);
    return s;
  }

  beforeEach(async () => {
    sb = await installedAtA();
    [a, b] = [join(sb.home, 'codex-a'), join(sb.home, 'codex-b')];
  });
  afterEach(() => sb.cleanup());

  it('disable stops while planning, names both config files and CODEX_HOME, and changes nothing', async () => {
    const before = await places();
    const r = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--scope', 'user'], { env: atB() });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFLICT\]: cannot disable acme\/kit:lint: Codex now keeps its skill switches in .*codex-b\/config\.toml \(CODEX_HOME=.*codex-b\), not in .*codex-a\/config\.toml/);
    assert.match(r.stderr, /hint: .*sf skit update acme\/kit --scope user/);
    assert.deepEqual(await places(), before);
  });

  it('doctor reports the move; --fix creates nothing in the new CODEX_HOME', async () => {
    const before = await places();
    const r = await sb.sf(['skit', 'doctor', '--json'], { env: atB() });
    assert.deepEqual((JSON.parse(r.stdout) as Doctor).findings.map((f) => f.code), ['SF_DRIFT_HOST_MOVED'], r.stdout);
    const fix = await sb.sf(['skit', 'doctor', '--fix'], { env: atB() });
    assert.equal(fix.code, 1, fix.stdout);
    assert.deepEqual(await places(), before);
  });

  it('update moves the switches of an up-to-date installation to the new config.toml', async () => {
    const up = await sb.sf(['skit', 'update', 'acme/kit', '--scope', 'user'], { env: atB() });
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /codex.*moved .*codex-a\/config\.toml to .*codex-b\/config\.toml/);
    assert.match((await readOr(join(b, 'config.toml'))) ?? '', /# managed by sf: acme\/kit:review/);
    assert.doesNotMatch((await readOr(join(a, 'config.toml'))) ?? '', /acme\/kit/);
    const [rec] = await sb.list();
    assert.deepEqual(rec.targets[0] && (rec.targets[0] as unknown as { configEdits: { file: string }[] }).configEdits.map((e) => e.file), [join(b, 'config.toml')]);
    assert.equal((await sb.sf(['skit', 'doctor'], { env: atB() })).code, 0);
  });

  for (const verb of [['add', 'skit'], ['skit', 'install']]) {
    it(`\`sf ${verb.join(' ')}\` of the same source moves the switches of an up-to-date installation to the new config.toml, and says so`, async () => {
      const r = await sb.sf([...verb, sb.source, '--scope', 'user', '--agent', 'codex', '--yes'], { env: atB() });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /acme\/kit \(codex\): its switches moved from .*codex-a\/config\.toml to .*codex-b\/config\.toml, where Codex keeps them now/);
      assert.doesNotMatch(r.stdout, /already installed and up to date/);
      assert.match((await readOr(join(b, 'config.toml'))) ?? '', /# managed by sf: acme\/kit:review/);
      assert.doesNotMatch((await readOr(join(a, 'config.toml'))) ?? '', /acme\/kit/);
      const [rec] = await sb.list();
      assert.deepEqual((rec.targets[0] as unknown as { configEdits: { file: string }[] }).configEdits.map((e) => e.file), [join(b, 'config.toml')]);
      assert.equal((await sb.sf(['skit', 'doctor'], { env: atB() })).code, 0);
    });
  }

  it('`sf add skit` and `sf skit install` of the moved installation print the same and leave the same state', async () => {
    const other = await installedAtA();
    try {
      const run = (s: InstallSandbox, verb: string[]) => s.sf([...verb, s.source, '--scope', 'user', '--agent', 'codex', '--yes', '--json'], { env: { CODEX_HOME: join(s.home, 'codex-b') } });
      const [x, y] = [await run(sb, ['add', 'skit']), await run(other, ['skit', 'install'])];
      const norm = (text: string, s: InstallSandbox) => text.split(s.root).join('<ROOT>').replace(/"(installedAt|updatedAt|fingerprint)": ?"[^"]+"/g, '"$1": "<X>"').replace(/[^"/]+\.bak"/g, '<BAK>"');
      assert.equal(x.code, 0, x.stderr);
      assert.equal(y.code, x.code);
      assert.equal(norm(x.stdout, sb), norm(y.stdout, other));
      const state = async (s: InstallSandbox) => norm(JSON.stringify(await snapshot(s, [join(s.home, 'codex-a', 'config.toml'), join(s.home, 'codex-b', 'config.toml')], [join(s.home, '.agents', 'skills')])), s);
      assert.equal(await state(sb), await state(other));
    } finally {
      await other.cleanup();
    }
  });

  for (const verb of [['skit', 'update', 'acme/kit'], ['add', 'skit', '<source>', '--agent', 'codex', '--yes']]) {
    it(`\`sf ${verb.slice(0, 2).join(' ')}\` checks the recorded config.toml it takes the switches out of: one that does not parse stops the move with nothing changed`, async () => {
      await appendFile(join(a, 'config.toml'), 'broken = [\n');
      const before = await places();
      const r = await sb.sf([...verb.map((w) => (w === '<source>' ? sb.source : w)), '--scope', 'user'], { env: atB() });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /error\[SF_E_CONFIG\]: .*codex-a\/config\.toml:\d+:\d+/);
      assert.doesNotMatch(r.stderr, /could not undo/);
      assert.deepEqual(await places(), before);
      const doctor = JSON.parse((await sb.sf(['skit', 'doctor', '--json'], { env: atB() })).stdout) as Doctor;
      assert.ok(!doctor.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED'), 'nothing was applied, so nothing is left to undo');
    });
  }

  it('remove takes the entries out of the recorded config.toml and leaves the new one alone', async () => {
    await writeFile(join(b, 'config.toml'), 'model = "o3"\n');
    const r = await sb.sf(['skit', 'remove', 'acme/kit', '--scope', 'user'], { env: atB() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /codex: Codex now keeps its skill switches in .*codex-b\/config\.toml/);
    assert.doesNotMatch((await readOr(join(a, 'config.toml'))) ?? '', /acme\/kit/);
    assert.equal(await readOr(join(b, 'config.toml')), 'model = "o3"\n');
    assert.deepEqual(await rootContents(root()), {});
  });

  it('a rollback of an update leaves the switches in the config.toml the record names', async () => {
    await appendFile(join(sb.source, 'skills', 'lint', 'SKILL.md'), 'two\n');
    const [old] = await storeEntries(sb);
    const crash = await sb.sf(['skit', 'update', 'acme/kit', '--scope', 'user'], { env: { ...atB(), SF_CRASH_AT: 'update:after-project' } });
    assert.notEqual(crash.code, 0);
    const fresh = (await storeEntries(sb)).find((n) => n !== old)!;
    await appendFile(join(sb.sfHome, 'store', fresh, 'skills', 'lint', 'SKILL.md'), 'edited\n');
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json'], { env: atB() });
    const report = JSON.parse(fix.stdout) as Doctor;
    assert.ok(report.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED' && /rolled-back/.test(f.message)), fix.stdout);
    // the rollback itself put it back: no repair of doctor's was needed after it
    assert.deepEqual(report.findings.map((f) => f.code).filter((c) => c !== 'SF_DRIFT_INTERRUPTED'), ['SF_DRIFT_HOST_MOVED'], fix.stdout);
    const [rec] = await sb.list();
    const files = (rec.targets[0] as unknown as { configEdits: { file: string }[] }).configEdits.map((e) => e.file);
    assert.deepEqual(files, [join(a, 'config.toml')]);
    assert.match((await readOr(join(a, 'config.toml'))) ?? '', /# managed by sf: acme\/kit:review/);
    assert.doesNotMatch((await readOr(join(b, 'config.toml'))) ?? '', /acme\/kit/);
  });
});

describe('removing an agent that shared .agents/skills with a Codex whose CODEX_HOME changed (project scope)', function () {
  this.timeout(90_000);
  let sb: InstallSandbox;
  let a: string;
  let b: string;
  const atB = () => ({ CODEX_HOME: b });
  const root = () => join(sb.project, '.agents', 'skills');
  const places = () => snapshot(sb, [join(a, 'config.toml'), join(b, 'config.toml')], [root()]);
  const removeCursor = () => sb.sf(['skit', 'remove', 'acme/kit', '--agent', 'cursor'], { env: atB() });

  // review is off for both agents (so not projected); lint is off for Codex alone (its switch is in codex-a/config.toml).
  // Removing cursor gives Codex back review, switched off: an enablement step in the recorded config.toml.
  beforeEach(async () => {
    sb = await installSandbox('sf-moved-shared-');
    await writeTree(sb.source, kitTree('one', ['review', 'lint']));
    [a, b] = [join(sb.home, 'codex-a'), join(sb.home, 'codex-b')];
    await mkdir(a, { recursive: true });
    await mkdir(b, { recursive: true });
    const env = { CODEX_HOME: a };
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'codex,cursor', '--yes'], { env })).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review'], { env })).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agent', 'codex'], { env })).code, 0);
    assert.deepEqual(Object.keys(await rootContents(root())), ['lint']);
  });
  afterEach(() => sb.cleanup());

  it('checks the recorded config.toml before writing: one that does not parse stops the remove with nothing changed', async () => {
    await appendFile(join(a, 'config.toml'), 'broken = [\n');
    const before = await places();
    const r = await removeCursor();
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /error\[SF_E_CONFIG\]: .*codex-a\/config\.toml:\d+:\d+/);
    assert.doesNotMatch(r.stderr, /could not undo/);
    assert.deepEqual(await places(), before);
    const doctor = JSON.parse((await sb.sf(['skit', 'doctor', '--json'], { env: atB() })).stdout) as Doctor;
    assert.ok(!doctor.findings.some((f) => f.code === 'SF_DRIFT_INTERRUPTED'), 'nothing was applied, so nothing is left to undo');
  });

  it('does not check the config.toml Codex reads now, which it never writes: one that does not parse there does not stop the remove', async () => {
    await writeFile(join(b, 'config.toml'), 'broken = [\n');
    const r = await removeCursor();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await readOr(join(b, 'config.toml')), 'broken = [\n');
    assert.deepEqual(Object.keys(await rootContents(root())), ['lint', 'review']);
    assert.match((await readOr(join(a, 'config.toml'))) ?? '', /# managed by sf: acme\/kit:review/);
    assert.deepEqual((await sb.list())[0].targets.map((t) => t.agent), ['codex']);
    // the Codex that stays is where it was installed, not where Codex reads now: said, with the way to move it
    assert.match(r.stdout + r.stderr, /codex \(kept\): Codex now keeps its skill switches in .*codex-b\/config\.toml \(CODEX_HOME=.*codex-b\), not in .*codex-a\/config\.toml.*sf skit update acme\/kit/);
  });
});

describe('an OpenCode installation whose skill directory moved (XDG_CONFIG_HOME changed since the install)', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  let a: string;
  let b: string;

  beforeEach(async () => {
    sb = await installSandbox('sf-moved-opencode-');
    await writeTree(sb.source, kitTree('one', ['review', 'lint']));
    [a, b] = [join(sb.home, 'xdg-a'), join(sb.home, 'xdg-b')];
    const env = { XDG_CONFIG_HOME: a };
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'opencode', '--yes'], { env })).code, 0);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user'], { env })).code, 0);
  });
  afterEach(() => sb.cleanup());

  it('disable stops naming XDG_CONFIG_HOME; doctor checks the recorded directory and config and reports only the move', async () => {
    const env = { XDG_CONFIG_HOME: b };
    const places = () => snapshot(sb, [join(a, 'opencode', 'opencode.jsonc'), join(b, 'opencode', 'opencode.jsonc')], [join(a, 'opencode', 'skills'), join(b, 'opencode', 'skills')]);
    const before = await places();
    const r = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--scope', 'user'], { env });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /OpenCode now reads skills from .*xdg-b\/opencode\/skills \(XDG_CONFIG_HOME=.*xdg-b\), not from .*xdg-a\/opencode\/skills/);
    assert.match(r.stderr, /run sf with XDG_CONFIG_HOME=\S*xdg-a\b/);
    const doctor = await sb.sf(['skit', 'doctor', '--fix', '--json'], { env });
    assert.deepEqual((JSON.parse(doctor.stdout) as Doctor).findings.map((f) => f.code), ['SF_DRIFT_HOST_MOVED'], doctor.stdout);
    assert.deepEqual(await places(), before);
    // where it is recorded, everything still works
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint', '--scope', 'user'], { env: { XDG_CONFIG_HOME: a } })).code, 0);
  });
});
