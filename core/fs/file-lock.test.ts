import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { repoRoot, tempDir } from '../../test-support/index.js';
import { withFileLock } from './file-lock.js';

describe('core/fs file lock (one read-modify-write at a time among sf processes)', () => {
  let dir: { path: string; cleanup(): Promise<void> };
  beforeEach(async () => (dir = await tempDir('sf-file-lock-')));
  afterEach(() => dir.cleanup());

  it('serializes concurrent holders in this process and removes the lock after', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    let inside = 0;
    let most = 0;
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lock, async () => {
      most = Math.max(most, ++inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
    }, { what: 'f' })));
    assert.equal(most, 1);
    assert.equal(existsSync(lock), false);
  });

  it('takes over a lock whose owner is gone, waits for a live one and then names it', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    await writeFile(lock, '2147483646\n'); // no such process
    const leftover = `${lock}.2147483646.0badc0de`; // a temp file a killed owner left behind
    await writeFile(leftover, '2147483646\n');
    assert.equal(await withFileLock(lock, async () => 'ran', { what: 'f' }), 'ran');
    assert.equal(existsSync(leftover), false, 'a dead owner\'s temp file is cleaned up with its lock');
    const sleeper = spawn('sleep', ['30']);
    try {
      await writeFile(lock, `${sleeper.pid}\n`);
      await assert.rejects(withFileLock(lock, async () => 'ran', { what: 'the file f', waitMs: 200 }), (e) => isSfError(e, 'SF_E_CONFLICT') && e.message.includes(`pid ${sleeper.pid}`) && e.message.includes('the file f'));
    } finally {
      sleeper.kill();
    }
  });

  it('is re-entrant within one process (an edit inside an edit of the same file)', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    const out = await withFileLock(lock, () => withFileLock(lock, async () => 'nested', { what: 'f', waitMs: 100 }), { what: 'f' });
    assert.equal(out, 'nested');
  });

  it('lets exactly one of several processes take over the lock of a killed owner at a time', async function () {
    this.timeout(60_000);
    const lock = join(dir.path, '.f.sf-lock');
    const log = join(dir.path, 'log');
    const script = join(dir.path, 'racer.mts');
    const module = join(repoRoot, 'core', 'fs', 'file-lock.ts');
    await writeFile(script, [
      `import { appendFileSync } from 'node:fs';`,
      `import { withFileLock } from ${JSON.stringify(module)};`,
      `const [lock, log, role] = process.argv.slice(2);`,
      `await withFileLock(lock, async () => {`,
      `  if (role === 'victim') { appendFileSync(log, 'held\\n'); setInterval(() => undefined, 1000); await new Promise(() => undefined); }`,
      `  appendFileSync(log, 'in ' + process.pid + '\\n');`,
      `  await new Promise((r) => setTimeout(r, 30));`,
      `  appendFileSync(log, 'out ' + process.pid + '\\n');`,
      `}, { what: 'f', waitMs: 30_000 });`,
    ].join('\n'));
    const run = (role: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, lock, log, role], { cwd: repoRoot, stdio: 'ignore' });
      return { child, closed: new Promise((r) => child.on('close', r)) };
    };
    const victim = run('victim');
    for (const deadline = Date.now() + 20_000; !existsSync(log); ) {
      assert.ok(Date.now() < deadline, 'the victim never took the lock');
      await new Promise((r) => setTimeout(r, 20));
    }
    const racers = Array.from({ length: 6 }, () => run('racer'));
    await new Promise((r) => setTimeout(r, 1500)); // every racer is waiting on the victim's lock
    victim.child.kill('SIGKILL');
    await Promise.all(racers.map((r) => r.closed));
    const lines = (await readFile(log, 'utf8')).trim().split('\n').slice(1);
    let inside = 0;
    for (const line of lines) {
      inside += line.startsWith('in ') ? 1 : -1;
      assert.ok(inside <= 1, `two holders at once: ${lines.join(', ')}`);
    }
    assert.equal(lines.length, 12, 'every racer got in once');
    assert.equal(existsSync(lock), false);
  });
  it('leaves no private lock file behind when the disk is full, and names the directory, not the lock file, when it cannot lock', async function () {
    this.timeout(60_000);
    // a full 64 KiB tmpfs and a read-only bind mount, in a private user and mount namespace (no root needed)
    const full = join(dir.path, 'full');
    const ro = join(dir.path, 'ro');
    for (const d of [full, ro]) await mkdir(d);
    const script = join(dir.path, 'lock.mts');
    const module = join(repoRoot, 'core', 'fs', 'file-lock.ts');
    await writeFile(script, [
      `import { withFileLock } from ${JSON.stringify(module)};`,
      `import { readdirSync } from 'node:fs';`,
      `const out = {};`,
      `for (const d of process.argv.slice(2)) {`,
      `  try { await withFileLock(d + '/.settings.json.sf-lock', async () => 'ran', { what: d + '/settings.json' }); out[d] = 'ran'; }`,
      `  catch (e) { out[d] = { code: e.code, message: e.message, hint: e.hint, left: readdirSync(d).filter((n) => n.includes('sf-lock')) }; }`,
      `}`,
      `console.log(JSON.stringify(out));`,
    ].join('\n'));
    const sh = [
      `mount -t tmpfs -o size=64k tmpfs "${full}" || exit 99`,
      `head -c 1M /dev/zero > "${full}/filler" 2>/dev/null`,
      `mount --bind "${ro}" "${ro}" && mount -o remount,bind,ro "${ro}" || exit 99`,
      `exec "${process.execPath}" --import tsx "${script}" "${full}" "${ro}"`,
    ].join('\n');
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', sh], { cwd: repoRoot, encoding: 'utf8' });
    if (r.error || r.status === 99) this.skip(); // no user namespaces here
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, { code: string; message: string; hint: string; left: string[] }>;
    assert.equal(out[full].code, 'SF_E_DISK_FULL');
    assert.deepEqual(out[full].left, [], 'the private lock file a full disk cut short is removed');
    assert.equal(out[ro].code, 'SF_E_IO');
    for (const d of [full, ro]) {
      assert.ok(out[d].message.includes(`cannot edit ${d}/settings.json: no lock file can be created in ${d}`), out[d].message);
      assert.doesNotMatch(out[d].message, /sf-lock/);
    }
    assert.match(out[ro].message, /EROFS: read-only file system/);
  });
});
