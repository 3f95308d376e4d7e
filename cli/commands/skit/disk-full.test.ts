import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, tempDir, writeTree } from '../../../test-support/index.js';
import { kitTree } from '../../../test-support/skit-install.js';

/**
 * A full disk is the user's to fix, not a bug to report: `sf add skit` into a 256 KiB tmpfs
 * $SF_HOME (mounted in a private user and mount namespace, `unshare -rm`, so no root is needed)
 * with a SKIT twice that size.
 */
const SCRIPT = `
set -u
mount -t tmpfs -o size=256k tmpfs "$SF_HOME_MOUNT" || exit 99
cd "$PROJECT"
run() { name=$1; shift; node "$SF" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.code"; }
run add add skit "$KIT" --agent claude-code --yes
run doctor skit doctor --fix --json
run list skit list --json
ls -A "$SF_HOME/store" > "$OUT/store.ls"
`;


/**
 * Runs `script` (SCRIPT with its size and flags) in a private user and mount namespace over a new
 * sandbox whose kit is `kit`; null when user namespaces are not available here.
 */
async function runFull(tmp: string, kit: Record<string, string>, script: string): Promise<((name: string) => Promise<string>) | null> {
  const mountPoint = join(tmp, 'home');
  const project = join(tmp, 'project');
  const out = join(tmp, 'out');
  for (const dir of [mountPoint, join(project, '.git'), join(project, '.claude'), out]) await mkdir(dir, { recursive: true });
  await writeTree(join(tmp, 'kit'), kit);
  const env = { ...process.env, SF_HOME_MOUNT: mountPoint, HOME: mountPoint, SF_HOME: join(mountPoint, '.sf'), PROJECT: project, KIT: join(tmp, 'kit'), OUT: out, SF: sfBin, NO_COLOR: '1' };
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { env, encoding: 'utf8' });
  if (r.error || r.status === 99) return null;
  assert.equal(r.status, 0, r.stderr);
  return (name) => readFile(join(out, name), 'utf8');
}

describe('sf add skit on a full disk', () => {
  it('fails with SF_E_DISK_FULL (exit 6) and a hint, leaves no release behind, and doctor --fix recovers', async function () {
    this.timeout(60_000);
    const tmp = await tempDir('sf-disk-full-');
    try {
      const read = await runFull(tmp.path, { ...kitTree(), 'skills/review/references/big.md': randomBytes(384 * 1024).toString('base64') }, SCRIPT);
      if (!read) this.skip(); // no user namespaces here: nothing to learn
      const project = join(tmp.path, 'project');

      assert.equal((await read('add.code')).trim(), '6');
      const addErr = await read('add.err');
      assert.match(addErr, /error\[SF_E_DISK_FULL\]: no space left on the device/);
      assert.match(addErr, /hint: free disk space .*`sf skit doctor --fix`/);
      assert.doesNotMatch(addErr, /internal error|please report/);

      assert.equal((await read('doctor.code')).trim(), '0', await read('doctor.err'));
      assert.equal(JSON.parse(await read('doctor.out')).clean, true);
      assert.deepEqual(JSON.parse(await read('list.out')), []);
      assert.deepEqual((await read('store.ls')).split('\n').filter(Boolean), ['.staging']);
      assert.deepEqual(await readdir(join(project, '.claude')), [], 'nothing was projected');
    } finally {
      await tmp.cleanup();
    }
  });

  it('keeps its report on a line of its own after lmdb prints its unterminated "Write error"', async function () {
    this.timeout(60_000);
    const tmp = await tempDir('sf-disk-full-lmdb-');
    try {
      // 32 KiB: too small for the library's first commit, which comes before any store file
      const script = SCRIPT.replace('size=256k', 'size=32k').replace('--agent claude-code --yes', '--agent claude-code --yes --json');
      const read = await runFull(tmp.path, kitTree(), script);
      if (!read) this.skip();
      assert.equal((await read('add.code')).trim(), '6');
      const lines = (await read('add.err')).split('\n');
      // lmdb's own line (when it printed one), then the JSON error object, parseable on its own
      const start = lines.findIndex((l) => l === '{');
      assert.ok(start >= 0, lines.join('\n'));
      assert.ok(lines.slice(0, start).every((l) => /^(Write error: .*)?$/.test(l) || /SKIT_SKILL_DECLARATIONS_INCOMPLETE|hint: /.test(l)), lines.join('\n'));
      assert.equal(JSON.parse(lines.slice(start).join('\n')).error.code, 'SF_E_DISK_FULL');
    } finally {
      await tmp.cleanup();
    }
  });
});
