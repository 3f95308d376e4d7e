import { strict as assert } from 'node:assert';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import type { InstallationRecord } from '../library/types.js';
import { SfError } from '../errors/index.js';
import { PathOwners, stillUsed, updateInsteadOfCollision } from './plan-checks.js';

/** An installation of `skitId` recording `paths` for each agent. */
const inst = (skitId: string, targets: Record<string, string[]>): InstallationRecord =>
  ({
    skitId,
    scope: 'project',
    targets: Object.entries(targets).map(([agent, paths]) => ({ agent, paths: paths.map((path) => ({ skillId: `${skitId}:x`, path, mode: 'symlink' })) })),
  }) as unknown as InstallationRecord;

describe('PathOwners: the paths installations record, indexed once', () => {
  it('finds the owner of a path, leaving out the installation being changed', () => {
    const a = inst('acme/a', { windsurf: ['/p/.windsurf/skills/one'] });
    const b = inst('acme/b', { windsurf: ['/p/.windsurf/skills/two'], cline: ['/p/.agents/skills/two'] });
    const owners = PathOwners.of([a, b]);
    assert.deepEqual(owners.find('/p/.agents/skills/two'), { path: '/p/.agents/skills/two', owner: { skitId: 'acme/b', scope: 'project', agent: 'cline' } });
    assert.equal(owners.find('/p/.agents/skills/two', b), undefined);
    assert.equal(owners.find('/p/.windsurf/skills/three'), undefined);
    // one path recorded by two installations: the other one still owns it
    const twin = inst('acme/twin', { windsurf: ['/p/.windsurf/skills/one'] });
    owners.sync([a, b, twin]);
    assert.equal(owners.find('/p/.windsurf/skills/one')?.owner.skitId, 'acme/twin');
    assert.equal(owners.find('/p/.windsurf/skills/one', twin)?.owner.skitId, 'acme/a');
  });

  it('sync re-indexes only the records that changed (by identity): a replaced record loses its old paths', () => {
    const a = inst('acme/a', { windsurf: ['/p/.windsurf/skills/one'] });
    const b = inst('acme/b', { windsurf: ['/p/.windsurf/skills/two'] });
    const owners = PathOwners.of([a, b]);
    const a2 = inst('acme/a', { windsurf: ['/p/.windsurf/skills/uno'] });
    owners.sync([a2, b]);
    assert.equal(owners.find('/p/.windsurf/skills/one'), undefined);
    assert.equal(owners.find('/p/.windsurf/skills/uno')?.owner.skitId, 'acme/a');
    owners.sync([a2]);
    assert.equal(owners.find('/p/.windsurf/skills/two'), undefined);
    // the same answers as an index built afresh
    const c = inst('acme/c', { cline: ['/p/.agents/skills/two'] });
    owners.sync([a2, c]);
    for (const path of ['/p/.windsurf/skills/uno', '/p/.windsurf/skills/two', '/p/.agents/skills/two']) assert.deepEqual(owners.find(path), PathOwners.of([a2, c]).find(path));
  });

  it('finds an entry reached through a skill root that is a link to another, and stillUsed counts what the installation becomes', async () => {
    const tmp = await tempDir('sf-owners-');
    try {
      const real = join(tmp.path, 'p', '.agents', 'skills');
      const linked = join(tmp.path, 'p', '.windsurf', 'skills');
      await mkdir(real, { recursive: true });
      await mkdir(join(tmp.path, 'p', '.windsurf'), { recursive: true });
      await symlink(real, linked);
      const a = inst('acme/a', { cline: [join(real, 'one')] });
      const owners = PathOwners.of([a]);
      assert.deepEqual(owners.find(join(linked, 'one')), { path: join(real, 'one'), owner: { skitId: 'acme/a', scope: 'project', agent: 'cline' } });
      const b = inst('acme/b', { windsurf: [join(linked, 'two')] });
      const bAfter = inst('acme/b', { cline: [join(real, 'two')] });
      const used = stillUsed(PathOwners.of([a, b]), b, bAfter);
      assert.equal(used(join(linked, 'two')), true, 'what b becomes still records the entry');
      assert.equal(used(join(linked, 'one')), true, 'a records it');
      assert.equal(stillUsed(PathOwners.of([a, b]), b, null)(join(linked, 'two')), false);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('updateInsteadOfCollision: a provisional git install of the same repository at another ref', () => {
  const collision = (owner: Record<string, unknown>) =>
    new SfError('SF_E_NAME_COLLISION', 'cannot install provisional/b:foo: /p/.claude/skills/foo belongs to provisional/a', {
      hint: 'two SKITs cannot project a skill with the same name into one skill directory; remove provisional/a first',
      data: { owner: { skitId: 'provisional/a', scope: 'project', agent: 'claude-code', projectRoot: '/p', scopeKey: 'project:/p', ...owner } },
    });

  it('names `sf skit update <id> --version <ref>`, with the flag or directory that reaches the owner\'s scope', () => {
    const e = collision({ provisionalSource: 'https://example.com/r.git#v1:skills' });
    const here = updateInsteadOfCollision(e, 'https://example.com/r.git#v2:skills', undefined, 'project:/p');
    assert.match(here.hint ?? '', /`sf skit update provisional\/a --version v2`$/);
    assert.equal(here.message, e.message);
    assert.equal(here.code, 'SF_E_NAME_COLLISION');
    // --version gives the ref as well as #ref
    assert.match(updateInsteadOfCollision(e, 'https://example.com/r.git#:skills', 'v3', 'project:/p').hint ?? '', /--version v3`/);
    const user = collision({ scope: 'user', projectRoot: undefined, scopeKey: 'user', provisionalSource: 'https://example.com/r.git' });
    assert.match(updateInsteadOfCollision(user, 'https://example.com/r.git#v2', undefined, 'project:/q').hint ?? '', /--version v2 --scope user`/);
    assert.match(updateInsteadOfCollision(e, 'https://example.com/r.git#v2:skills', undefined, 'project:/q').hint ?? '', /--version v2` \(run it from \/p\)/);
  });

  it('leaves any other collision as it was: another repository, subpath or the same ref, a SKIT with its own id, no ref asked', () => {
    const e = collision({ provisionalSource: 'https://example.com/r.git#v1' });
    for (const source of ['https://example.com/other.git#v2', 'https://example.com/r.git#v2:sub', 'https://example.com/r.git#v1', 'https://example.com/r.git', '/local/dir']) {
      assert.equal(updateInsteadOfCollision(e, source, undefined, 'project:/p'), e, source);
    }
    const named = collision({});
    assert.equal(updateInsteadOfCollision(named, 'https://example.com/r.git#v2', undefined, 'project:/p'), named, 'an owner with an id of its own is another SKIT');
  });
});
