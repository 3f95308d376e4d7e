import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../../test-support/skit-install.js';

const listTmp = (sb: InstallSandbox) => readdir(join(sb.sfHome, 'tmp')).catch(() => [] as string[]);

/**
 * A first install interrupted while it unpacks a large archive: nothing may stay behind in
 * $SF_HOME/tmp, and what an older sf (or a SIGKILL) left there is found by doctor even before any
 * library exists.
 */
describe('sf add skit interrupted, and scratch before the first install', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-interrupt-')));
  afterEach(() => sb.cleanup());

  it('removes its download and unpack scratch on Ctrl-C (SIGINT) and still dies of the signal', async function () {
    this.timeout(60_000);
    await writeTree(sb.source, { ...kitTree(), 'skills/review/references/big.bin': randomBytes(48 * 1024 * 1024) });
    const archive = join(sb.root, 'kit.tar');
    execFileSync('tar', ['-cf', archive, '-C', sb.source, '.']);
    const child = spawn(process.execPath, [sfBin, 'add', 'skit', archive, '--agent', 'claude-code', '--yes'], { cwd: sb.project, env: { ...process.env, ...sb.env }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // wait until the unpack is under way, then interrupt it
    for (let i = 0; i < 600 && (await listTmp(sb)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok((await listTmp(sb)).length > 0, 'the install never started unpacking');
    child.kill('SIGINT');
    assert.equal(await exited, 'SIGINT');
    assert.deepEqual(await listTmp(sb), []);
  });

  it('doctor finds scratch a killed first install left although no library exists, and --fix removes it', async () => {
    // a pid far above pid_max: no process can hold it
    const left = join(sb.sfHome, 'tmp', 'src-99999999-0badc0ffee00');
    await mkdir(join(left, 'archive-1'), { recursive: true });
    await writeFile(join(left, 'archive-1', 'part'), 'x');
    const r = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).findings.map((f: { code: string }) => f.code), ['SF_DRIFT_STAGING_LEFTOVER']);
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    assert.deepEqual(await listTmp(sb), []);
  });
});
