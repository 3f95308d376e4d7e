import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir, writeTree } from '../../test-support/index.js';
import { skillMd } from '../../test-support/git.js';
import { resolveSource, type SourceResolver } from './index.js';

/** A stand-in for the hub plug-in: claims `owner/name[@version]` and records what it was asked. */
function hubLike(seen: string[]): SourceResolver {
  return {
    name: 'hub',
    forms: ['owner/name[@version]'],
    matches: (input) => /^[a-z0-9-]+\/[a-z0-9-]+(@[^@/]+)?$/.test(input),
    async resolve(input, options) {
      seen.push(`${input} v=${options.version ?? ''}`);
      return { kind: 'hub', canonical: input, fingerprint: 'f'.repeat(64), provisionalId: 'provisional/ffffffffffffffff', dir: options.workDir };
    },
  };
}

describe('core/sources resolver chain', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ path: root, cleanup } = await tempDir('sf-src-chain-')));
  afterEach(() => cleanup());

  it('hands owner/name to a plug-in resolver, with the version', async () => {
    const seen: string[] = [];
    const r = await resolveSource('acme/kit', { cwd: root, workDir: join(root, 'w'), version: '1.2.0', resolvers: [hubLike(seen)] });
    assert.equal(r.kind, 'hub');
    assert.deepEqual(seen, ['acme/kit v=1.2.0']);
  });

  it('lets an existing local directory win over a plug-in that would claim the same string', async () => {
    await writeTree(root, { 'acme/kit/SKILL.md': skillMd('kit') });
    const seen: string[] = [];
    const r = await resolveSource('acme/kit', { cwd: root, workDir: join(root, 'w'), resolvers: [hubLike(seen)] });
    assert.equal(r.kind, 'local-skill');
    assert.deepEqual(seen, []);
  });

  it('calls a plug-in provider only for sources that are not local paths', async () => {
    await writeTree(root, { 'kit/SKILL.md': skillMd('kit') });
    const seen: string[] = [];
    let loads = 0;
    const provider = async () => {
      loads++;
      return [hubLike(seen)];
    };
    assert.equal((await resolveSource('./kit', { cwd: root, workDir: join(root, 'w'), resolvers: provider })).kind, 'local-skill');
    assert.equal(loads, 0);
    assert.equal((await resolveSource('acme/kit', { cwd: root, workDir: join(root, 'w'), resolvers: provider })).kind, 'hub');
    assert.equal(loads, 1);
    assert.deepEqual(seen, ['acme/kit v=']);
  });

  it('rejects an unrecognized source with SF_E_SOURCE, listing accepted forms, without leaking credentials', async () => {
    await assert.rejects(resolveSource('ftp://bob:hunter2@h/x', { cwd: root, workDir: join(root, 'w') }), (e) => {
      assert.ok(isSfError(e, 'SF_E_SOURCE'));
      assert.ok(!e.message.includes('hunter2'), e.message);
      assert.match(e.hint ?? '', /#<ref>\]\[:<subpath>\]/);
      assert.match(e.hint ?? '', /SKILL\.md/);
      assert.match(e.hint ?? '', /\.tgz/);
      return true;
    });
    await assert.rejects(resolveSource('owner/name', { cwd: root, workDir: join(root, 'w') }), (e) => isSfError(e, 'SF_E_SOURCE'));
    await assert.rejects(resolveSource('  ', { cwd: root, workDir: join(root, 'w') }), (e) => isSfError(e, 'SF_E_SOURCE'));
  });

  it('answers a malformed URL with SF_E_SOURCE (not an internal error) and never echoes its password', async () => {
    const sources = [
      'http://127.0.0.1:99999/SKILL.md',
      'https://exa mple.com/kit.tgz',
      'http://user:se#cret@127.0.0.1:1/auth/base.git',
      'http://user:pa?ss@127.0.0.1:1/base.git',
      'http://user:se/cret@127.0.0.1:1/auth/base.git',
      'user:secret@127.0.0.1:x.git',
    ];
    for (const source of sources) {
      await assert.rejects(resolveSource(source, { cwd: root, workDir: join(root, 'w') }), (e) => {
        assert.ok(isSfError(e), `${source}: ${String(e)}`);
        assert.ok(['SF_E_SOURCE', 'SF_E_FETCH', 'SF_E_GIT'].includes(e.code), `${source}: ${e.code} ${e.message}`);
        assert.ok(!/se[#/]?cret|pa\?ss/.test(JSON.stringify({ m: e.message, h: e.hint, d: e.data })), `${source}: ${e.message}`);
        return true;
      });
    }
  });

  it('refuses an ssh host or user that ssh would read as an option, before running git', async () => {
    for (const source of ['ssh://-oProxyCommand=touch%20x/r.git', 'ssh://-oProxyCommand@host/r.git', 'git@-oProxyCommand:r.git']) {
      await assert.rejects(resolveSource(source, { cwd: root, workDir: join(root, 'w') }), (e) => isSfError(e, 'SF_E_SOURCE') && /starts with "-"/.test(e.message), source);
    }
  });
});
