import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { InstallationCache, Library } from './db.js';
import { sfPaths } from './paths.js';
import { scopeKey, type InstallationRecord, type IntentRecord } from './types.js';
import { appendOutbox, outboxEventIds, readOutbox } from './outbox.js';

const record = (skitId: string, scope: 'user' | 'project', projectRoot?: string): InstallationRecord => ({
  schema: 1,
  skitId,
  provisional: skitId.startsWith('provisional/'),
  aliases: ['acme/alias'],
  scope,
  ...(projectRoot ? { projectRoot } : {}),
  release: { ref: 'main', commit: 'a'.repeat(40) },
  bundleHash: `sha256:${'b'.repeat(64)}`,
  skills: [{ name: 'review', id: `${skitId}:review`, hash: `sha256:${'c'.repeat(64)}`, path: 'skills/review', defaultEnabled: true }],
  enablement: { review: { '*': false, cursor: true } },
  targets: [
    {
      agent: 'cursor',
      scope,
      ...(projectRoot ? { projectRoot } : {}),
      skillRoot: '/p/.agents/skills',
      paths: [{ skillId: `${skitId}:review`, path: '/p/.agents/skills/review', mode: 'symlink' }],
      configEdits: [{ file: '/p/x.json', backup: '/b/x.json' }],
    },
  ],
  source: { kind: 'git', canonical: 'https://git.example/acme/kit.git#main', fingerprint: 'd'.repeat(64), ref: 'main', commit: 'a'.repeat(40) },
  installerVersion: '0.1.0',
  installedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
});

describe('core/library: the LMDB canonical library', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (dir = await tempDir('sf-lib-')));
  afterEach(() => dir.cleanup());

  it('does not create a library for read-only opens', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    assert.equal(await Library.open(paths, { create: false }), null);
    await assert.rejects(readFile(paths.library), /ENOENT/);
  });

  it('round-trips installation records per scope, across reopen', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const lib = (await Library.open(paths, { create: true }))!;
    const user = record('acme/kit', 'user');
    const proj = record('acme/kit', 'project', '/p');
    lib.commit({ put: [user, proj] });
    await lib.close();

    const again = (await Library.open(paths, { create: false }))!;
    assert.deepEqual(again.getInstallation('user', 'acme/kit'), user);
    assert.deepEqual(again.getInstallation(scopeKey('project', '/p'), 'acme/kit'), proj);
    assert.equal(again.listInstallations().length, 2);
    again.commit({ delete: [['user', 'acme/kit']] });
    assert.equal(again.getInstallation('user', 'acme/kit'), undefined);
    assert.deepEqual(again.listInstallations(), [proj]);
    await again.close();
  });

  it('lets only one intent claim the library, and commits records and intent deletion together', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const lib = (await Library.open(paths, { create: true }))!;
    const a: IntentRecord = { schema: 1, id: 'a', op: 'install', pid: 1, startedAt: 'now', phase: 'planning' };
    const b: IntentRecord = { ...a, id: 'b' };
    assert.deepEqual(lib.claim(a), []);
    assert.deepEqual(lib.claim(b), [a]);
    assert.equal(lib.getIntent('b'), undefined);
    lib.commit({ put: [record('acme/kit', 'user')], deleteIntent: 'a' });
    assert.deepEqual(lib.listIntents(), []);
    assert.equal(lib.listInstallations().length, 1);
    await lib.close();
  });

  it('with a cache, lists what a fresh read lists, reading once while only its own writes follow one another', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const fresh = async () => {
      const plain = (await Library.open(paths, { create: false }))!;
      try {
        return plain.listInstallations();
      } finally {
        await plain.close();
      }
    };
    const cache = new InstallationCache();
    const lib = (await Library.open(paths, { create: true, cache }))!;
    lib.commit({ put: [record('acme/b', 'user'), record('acme/a', 'user'), record('acme/c', 'project', '/p')] });
    const reads: string[] = [];
    const list = () => {
      const before = cache.list();
      const out = lib.listInstallations();
      reads.push(before ? 'cached' : 'read');
      return out;
    };
    assert.deepEqual(list(), await fresh());
    // its own writes, one after the other: kept, not read again (an intent claim, a changed record, a delete)
    const intent: IntentRecord = { schema: 1, id: 'i', op: 'update', pid: 1, startedAt: 'now', phase: 'planning' };
    assert.deepEqual(lib.claim(intent), []);
    lib.commit({ put: [{ ...record('acme/a', 'user'), updatedAt: 'later' }], deleteIntent: 'i' });
    assert.deepEqual(list(), await fresh());
    lib.commit({ delete: [['user', 'acme/b']] });
    assert.deepEqual(list(), await fresh());
    // a claim that is refused writes nothing, so it does not break the chain
    assert.equal(lib.claim({ ...intent, id: 'j' }).length, 0);
    assert.deepEqual(lib.claim({ ...intent, id: 'k' }).map((i) => i.id), ['j']);
    lib.commit({ deleteIntent: 'j' });
    assert.deepEqual(list(), await fresh());
    assert.deepEqual(reads, ['read', 'cached', 'cached', 'cached']);
    // a new key is read again (LMDB decides where it sorts)
    lib.commit({ put: [record('acme/0', 'user')] });
    assert.deepEqual(list(), await fresh());
    assert.equal(reads.at(-1), 'read');
    // another handle (another process, for LMDB) writes: the next own write does not follow the cached one
    const other = (await Library.open(paths, { create: false }))!;
    other.commit({ put: [record('acme/z', 'user')] });
    await other.close();
    lib.commit({ put: [{ ...record('acme/a', 'user'), updatedAt: 'latest' }] });
    assert.equal(cache.list(), undefined);
    assert.deepEqual(list(), await fresh());
    assert.ok(list().some((r) => r.skitId === 'acme/z'));
    await lib.close();
  });

  it('appends outbox events durably and reads their ids back, skipping a torn line', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const event = (id: string) => ({
      schema: 'forge/inventory-event/1' as const,
      event_id: id,
      event_name: 'agent.skill.inventory.changed' as const,
      timestamp: 'now',
      skit_id: 'acme/kit',
      release: {},
      bundle_hash: `sha256:${'b'.repeat(64)}`,
      action: 'installed' as const,
      agent: 'cursor',
      scope: 'user' as const,
      actor_type: 'user' as const,
      installer_version: '0.1.0',
      skills: [],
    });
    const { appendFile, readFile, stat } = await import('node:fs/promises');
    // nothing to append creates nothing
    appendOutbox(paths, []);
    await assert.rejects(stat(paths.outbox), { code: 'ENOENT' });
    appendOutbox(paths, [event('e1')]);
    assert.equal((await stat(paths.outbox)).mode & 0o777, 0o600);
    await appendFile(paths.outbox, '{"event_id":"torn');
    appendOutbox(paths, [event('e2')]);
    assert.deepEqual([...(await outboxEventIds(paths))].sort(), ['e1', 'e2']);
    assert.deepEqual((await readOutbox(paths)).map((e) => e.event_id), ['e1', 'e2']);
    // several events: one line each, in order, after the last complete line
    appendOutbox(paths, [event('e3'), event('e4')]);
    assert.deepEqual((await readOutbox(paths)).map((e) => e.event_id), ['e1', 'e2', 'e3', 'e4']);
    assert.equal((await readFile(paths.outbox, 'utf8')).split('\n').length, 6); // e1, torn, e2, e3, e4, ''
  });
});
