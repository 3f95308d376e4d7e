import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../../test-support/skit-install.js';

/** `sf add skit owner/name` with no hub logged in and no SF_HUB_URL (the sandbox has neither). */
describe('sf add skit with a hub id and no hub configured', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-no-hub-')));
  afterEach(() => sb.cleanup());

  it('says the source looks like a hub id and no hub is configured, with the hint of `sf skit list --remote`', async () => {
    const listRemote = await sb.sf(['skit', 'list', '--remote']);
    assert.equal(listRemote.code, 2, listRemote.stderr);
    assert.match(listRemote.stderr, /error\[SF_E_USAGE\]: no Forge hub is configured\n  hint: run `sf login --hub <url>`, pass --hub <url>, or set SF_HUB_URL=<url>\n/);
    for (const source of ['alice/kit', 'alice/kit@1.0.0']) {
      const r = await sb.sf(['add', 'skit', source, '--agent', 'claude-code', '-y']);
      assert.equal(r.code, 2, r.stderr);
      // the same hint, less --hub, which `sf add skit` does not take
      assert.equal(r.stderr, `error[SF_E_USAGE]: "${source}" looks like a Forge hub id (owner/name[@version]), but no Forge hub is configured\n  hint: run \`sf login --hub <url>\`, or set SF_HUB_URL=<url>\n`);
    }
    assert.deepEqual(await sb.list(), []);
  });

  it('still installs an existing local directory of that spelling as a path', async () => {
    await writeTree(join(sb.project, 'alice/kit'), kitTree());
    const r = await sb.sf(['add', 'skit', 'alice/kit', '--agent', 'claude-code', '-y', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await sb.list())[0].source.kind, 'local-dir');
  });

  it('lists hub ids among the accepted forms of an unknown source', async () => {
    const r = await sb.sf(['add', 'skit', 'ftp://example.com/kit', '--agent', 'claude-code', '-y']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error\[SF_E_SOURCE\]/);
    assert.match(r.stderr, /hint: accepted sources: .*owner\/name\[@version\] \(Forge hub/);
  });
});
