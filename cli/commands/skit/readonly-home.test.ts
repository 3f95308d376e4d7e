import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin } from '../../../test-support/index.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * $SF_HOME on a read-only mount (a container image, a shared read-only home): the commands that
 * only read still answer; a change fails with a clear error. The mount is made read-only in a
 * private user and mount namespace (`unshare -rm`), so no root is needed.
 */
const SCRIPT = `
mount --bind "$HOME" "$HOME" && mount -o remount,bind,ro "$HOME" || exit 99
cd "$PROJECT"
run() { name=$1; shift; node "$SF" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.code"; }
run list skit list --json
run doctor skit doctor --json
run disable skit disable acme/kit:review
`;

describe('sf skit list / doctor on a read-only $SF_HOME', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-ro-home-')));
  afterEach(() => sb.cleanup());

  it('lists and diagnoses; a change fails with SF_E_LIBRARY naming the problem', async function () {
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    const out = sb.root;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', SCRIPT], { env: { ...process.env, ...sb.env, PROJECT: sb.project, SF: sfBin, OUT: out }, encoding: 'utf8' });
    if (r.error || r.status === 99) this.skip(); // no user namespaces here
    assert.equal(r.status, 0, r.stderr);
    const read = (name: string) => readFile(join(out, name), 'utf8');
    assert.equal((await read('list.code')).trim(), '0', await read('list.err'));
    assert.deepEqual(JSON.parse(await read('list.out')).map((i: { skitId: string }) => i.skitId), ['acme/kit']);
    assert.equal((await read('doctor.code')).trim(), '0', await read('doctor.err'));
    assert.equal(JSON.parse(await read('doctor.out')).clean, true);
    assert.equal((await read('disable.code')).trim(), '10');
    assert.match(await read('disable.err'), /error\[SF_E_LIBRARY\]: could not open the library .*Read-only file system/);
  });
});
