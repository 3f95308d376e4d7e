import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { createCodexAdapter } from './adapter.js';

/** The `[[skills.config]]` entries Codex reads from `text`. */
const entries = (text: string) => (((parseToml(text) as any).skills?.config ?? []) as { path: string; enabled: boolean }[]).map((e) => ({ ...e }));

describe('codex adapter: one SKIT installed in several places shares ~/.codex/config.toml', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());
  const adapter = createCodexAdapter();
  const file = () => join(f.home, '.codex/config.toml');
  const userBeta = () => join(f.home, '.agents/skills/beta/SKILL.md');
  const projectBeta = () => join(f.project, '.agents/skills/beta/SKILL.md');
  const errors = async (record: Awaited<ReturnType<typeof adapter.project>>, scope: 'user' | 'project', disabled = ['beta']) =>
    (await adapter.diagnose(f.request(disabled), record, f.ctx(scope))).filter((d) => d.severity !== 'info');

  it('user and project scope each keep their own block; removing one never touches the other\'s', async () => {
    const user = await adapter.project(f.request(['beta']), f.ctx('user'));
    const project = await adapter.project(f.request(['beta']), f.ctx('project'));
    assert.deepEqual(entries(readFileSync(file(), 'utf8')), [{ path: userBeta(), enabled: false }, { path: projectBeta(), enabled: false }]);
    assert.deepEqual(await errors(user, 'user'), [], 'the user-scope installation is clean');
    assert.deepEqual(await errors(project, 'project'), [], 'the project-scope installation is clean');
    await adapter.unproject(project, f.ctx('project'));
    assert.deepEqual(entries(readFileSync(file(), 'utf8')), [{ path: userBeta(), enabled: false }], 'the user-scope block survives the project remove');
    assert.deepEqual(await errors(user, 'user'), []);
    await adapter.unproject(user, f.ctx('user'));
    assert.equal(existsSync(file()), false, 'the config.toml Forge created goes with its last block');
  });

  it('enabling the skill in one place leaves the other place\'s block, and doctor does not flip-flop between them', async () => {
    let user = await adapter.project(f.request(['beta']), f.ctx('user'));
    let project = await adapter.project(f.request(['beta']), f.ctx('project'));
    project = await adapter.setEnablement(f.request([]), project, f.ctx('project'));
    assert.deepEqual(entries(readFileSync(file(), 'utf8')), [{ path: userBeta(), enabled: false }]);
    assert.deepEqual(await errors(user, 'user'), []);
    assert.deepEqual(await errors(project, 'project', []), []);
    project = await adapter.setEnablement(f.request(['beta']), project, f.ctx('project'));
    const both = readFileSync(file(), 'utf8');
    // what doctor --fix does for each place in turn: nothing changes any more
    user = await adapter.setEnablement(f.request(['beta']), user, f.ctx('user'));
    project = await adapter.setEnablement(f.request(['beta']), project, f.ctx('project'));
    assert.equal(readFileSync(file(), 'utf8'), both);
    assert.deepEqual(await errors(user, 'user'), []);
    assert.deepEqual(await errors(project, 'project'), []);
  });

  it('two projects keep separate blocks, and the removal order does not matter', async () => {
    const other = join(f.root, 'proj2');
    await mkdir(other, { recursive: true });
    const ctx2 = { ...f.ctx('project'), projectRoot: other };
    await mkdir(join(f.home, '.codex'), { recursive: true });
    await writeFile(file(), '# mine\nmodel = "o4"\n');
    const a = await adapter.project(f.request(['beta']), f.ctx('project'));
    const b = await adapter.project(f.request(['beta']), ctx2);
    assert.deepEqual(entries(readFileSync(file(), 'utf8')).map((e) => e.path), [projectBeta(), join(other, '.agents/skills/beta/SKILL.md')]);
    await adapter.unproject(a, f.ctx('project'));
    assert.deepEqual(entries(readFileSync(file(), 'utf8')).map((e) => e.path), [join(other, '.agents/skills/beta/SKILL.md')]);
    await adapter.unproject(b, ctx2);
    assert.equal(readFileSync(file(), 'utf8'), '# mine\nmodel = "o4"\n');
  });

  it('a config.toml holding nothing but another place\'s blocks is deleted when the last place goes, not left empty', async () => {
    const user = await adapter.project(f.request(['beta']), f.ctx('user'));
    const project = await adapter.project(f.request(['beta']), f.ctx('project'));
    await adapter.unproject(user, f.ctx('user'));
    assert.deepEqual(entries(readFileSync(file(), 'utf8')).map((e) => e.path), [projectBeta()]);
    await adapter.unproject(project, f.ctx('project'));
    assert.equal(existsSync(file()), false);
  });

  it('an old-style block (marker with the skill id only) whose path is this place\'s is still Forge\'s', async () => {
    await mkdir(join(f.home, '.codex'), { recursive: true });
    const mine = '# mine\nmodel = "o4"\n';
    const old = (p: string) => `\n# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${p}"\nenabled = false\n`;
    await writeFile(file(), mine + old(userBeta()) + old(projectBeta()));
    // re-projected without a record (adoption): the project place takes over only its own block
    const project = await adapter.project(f.request(['beta']), f.ctx('project'));
    assert.equal(readFileSync(file(), 'utf8'), mine + old(userBeta()) + old(projectBeta()));
    await adapter.unproject(project, f.ctx('project'));
    assert.equal(readFileSync(file(), 'utf8'), mine + old(userBeta()), 'only the project block went');
  });

  it('repairs a config an older version left with only the other place\'s block, without touching that block', async () => {
    const user = await adapter.project(f.request(['beta']), f.ctx('user'));
    // what the old key-by-skill-id code did: the project install rewrote the user-scope block to its own path
    const hijacked = readFileSync(file(), 'utf8').replace(userBeta(), projectBeta());
    await writeFile(file(), hijacked);
    const found = await errors(user, 'user');
    assert.ok(found.some((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED' && d.message.includes(userBeta())), JSON.stringify(found));
    await adapter.setEnablement(f.request(['beta']), user, f.ctx('user'));
    const text = readFileSync(file(), 'utf8');
    assert.ok(text.startsWith(hijacked), 'the project block stays as it was');
    assert.deepEqual(entries(text), [{ path: projectBeta(), enabled: false }, { path: userBeta(), enabled: false }]);
  });
});
