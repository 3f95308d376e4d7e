import assert from 'node:assert/strict';
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/** `sf observe unlink` of what is not linked: one not-found error, the same with and without --json (D6). */
describe('sf observe unlink without such a link', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  before(async () => (tmp = await tempDir('sf-observe-unlink-')));
  after(() => tmp.cleanup());
  const sf = (args: string[]) => runSf(args, { cwd: tmp.path, env: { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf') } });

  it('is SF_E_NOT_FOUND (exit 3) on stderr naming the repository or path, with a hint, in both modes', async () => {
    const byRepo = await sf(['observe', 'unlink', '--repo', 'acme/other']);
    assert.equal(byRepo.code, 3, byRepo.stderr);
    assert.equal(byRepo.stdout, '');
    assert.match(byRepo.stderr, /^error\[SF_E_NOT_FOUND\]: there is no repository link to acme\/other\n  hint: `sf observe status` lists the links/);
    const byPath = await sf(['observe', 'unlink', join(tmp.path, 'nowhere'), '--json']);
    assert.equal(byPath.code, 3);
    assert.equal(byPath.stdout, '');
    const { error } = JSON.parse(byPath.stderr);
    assert.equal(error.code, 'SF_E_NOT_FOUND');
    assert.match(error.message, /no repository link of .*nowhere$/);
    assert.ok(error.hint);
  });
});

/**
 * Config edits that land while another command waits for the config lock: what `unlink` and
 * `destination remove` report is decided under the lock, from the file they rewrite (an unlink
 * that removed its link used to fail with SF_E_NOT_FOUND when a `link` landed first).
 */
describe('sf observe unlink / destination remove racing another config edit', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-observe-race-')));
  afterEach(() => tmp.cleanup());

  /** Runs `args` while this process holds the config lock, lands `edit` on config.json meanwhile, then lets it go. */
  async function whileLocked(args: string[], edit: (observe: Record<string, any>) => void) {
    const env = { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf') };
    const config = join(env.SF_HOME, 'config.json');
    const lock = `${config}.sf-lock`;
    await writeFile(lock, `${process.pid}\n`);
    const pending = runSf(args, { cwd: tmp.path, env });
    // the command has started and read config.json, and waits for the lock
    await new Promise((r) => setTimeout(r, 2500));
    const whole = JSON.parse(await readFile(config, 'utf8')) as { observe: Record<string, any> };
    edit(whole.observe);
    await writeFile(config, JSON.stringify(whole, null, 2) + '\n');
    await rm(lock);
    return { result: await pending, observe: () => readFile(config, 'utf8').then((t) => (JSON.parse(t) as { observe: Record<string, any> }).observe) };
  }

  it('unlink reports the link it removed although a link landed while it waited', async () => {
    const env = { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf') };
    await mkdir(join(tmp.path, 'r0'));
    await mkdir(join(tmp.path, 'r1'));
    assert.equal((await runSf(['observe', 'link', 'r0', '--repo', 'acme/r0'], { cwd: tmp.path, env })).code, 0);
    const r1 = await realpath(join(tmp.path, 'r1'));
    const { result, observe } = await whileLocked(['observe', 'unlink', 'r0', '--json'], (o) => o.links.push({ repository: 'acme/r1', path: r1 }));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { removed: 1, links: [{ repository: 'acme/r1', path: r1 }] });
    assert.deepEqual((await observe()).links, [{ repository: 'acme/r1', path: r1 }]);
  });

  it('destination remove of a destination another command removed meanwhile is SF_E_NOT_FOUND, not "removed"', async () => {
    const env = { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf') };
    assert.equal((await runSf(['observe', 'destination', 'add', 'gone', `file:${join(tmp.path, 'x.jsonl')}`], { cwd: tmp.path, env })).code, 0);
    const { result } = await whileLocked(['observe', 'destination', 'remove', 'gone'], (o) => (o.destinations = []));
    assert.equal(result.code, 3, result.stdout + result.stderr);
    assert.match(result.stderr, /SF_E_NOT_FOUND.*no destination named "gone"/);
    assert.equal(result.stdout, '');
  });
});
