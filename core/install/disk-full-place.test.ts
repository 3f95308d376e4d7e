import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, tempDir, writeTree } from '../../test-support/index.js';
import { kitTree } from '../../test-support/skit-install.js';

/**
 * A full disk names the place that is full: $SF_HOME and the project can be on different
 * filesystems, and the write that failed (an fd-based write, or lmdb's) names no path. Each case
 * puts one of them on a small tmpfs, in a private user and mount namespace (no root needed).
 */
async function addOnFull(full: 'home' | 'project', env: Record<string, string> = {}): Promise<{ code: string; err: string; home: string; project: string } | null> {
  const tmp = await tempDir('sf-full-place-');
  const home = join(tmp.path, 'home');
  const project = join(tmp.path, 'project');
  const out = join(tmp.path, 'out');
  for (const dir of [home, join(project, '.git'), join(project, '.claude'), out]) await mkdir(dir, { recursive: true });
  // a SKIT bigger than the 256 KiB tmpfs
  await writeTree(join(tmp.path, 'kit'), { ...kitTree(), 'skills/review/references/big.md': randomBytes(384 * 1024).toString('base64') });
  const mountPoint = full === 'home' ? home : project;
  const script = `mount -t tmpfs -o size=256k tmpfs "${mountPoint}" || exit 99\n${full === 'project' ? `mkdir -p "${project}/.git" "${project}/.claude"\n` : ''}cd "${project}"\nnode "${sfBin}" add skit "${join(tmp.path, 'kit')}" --agent claude-code --yes > "${out}/add.out" 2> "${out}/add.err"; echo $? > "${out}/add.code"`;
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { env: { ...process.env, HOME: home, SF_HOME: join(home, '.sf'), NO_COLOR: '1', ...env }, encoding: 'utf8' });
  try {
    if (r.error || r.status === 99) return null;
    assert.equal(r.status, 0, r.stderr);
    return { code: (await readFile(join(out, 'add.code'), 'utf8')).trim(), err: await readFile(join(out, 'add.err'), 'utf8'), home, project };
  } finally {
    await tmp.cleanup();
  }
}

describe('a full disk names where it is full', function () {
  this.timeout(60_000);

  it('$SF_HOME, when the store cannot take the release', async function () {
    const r = await addOnFull('home');
    if (!r) this.skip();
    assert.equal(r.code, '6', r.err);
    assert.match(r.err, new RegExp(`error\\[SF_E_DISK_FULL\\]: no space left on the device holding \\$SF_HOME \\(${r.home}/\\.sf\\)`));
  });

  it('the project, when its skill directories cannot take the copies', async function () {
    const r = await addOnFull('project', { SF_PROJECTION_MODE: 'copy' });
    if (!r) this.skip();
    assert.equal(r.code, '6', r.err);
    assert.match(r.err, new RegExp(`error\\[SF_E_DISK_FULL\\]: no space left on the device holding the project ${r.project}`));
  });
});
