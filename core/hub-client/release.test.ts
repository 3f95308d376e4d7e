import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { serveRoutes, type TestServer } from '../../test-support/http-server.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';
import { HubClient } from './client.js';
import { downloadRelease, fetchRelease, quarantineWarning, type HubRelease } from './release.js';

/** What a hostile or broken hub can answer, served by a real HTTP server on 127.0.0.1. */
describe('core/hub-client release: a hub is trusted with exactly what was asked for', () => {
  let other: PackedSkit;
  let server: TestServer | undefined;
  before(async () => (other = await packSkit(twoSkillTree('alice/other'))));
  after(() => other.cleanup());
  afterEach(async () => server?.close());

  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const releaseOf = (over: Partial<HubRelease>): HubRelease => ({
    skitId: 'alice/kit', version: '1.0.0', bundleHash: other.hashes!.bundle, publishedAt: '', url: '', skills: [], deprecated: null, quarantined: null,
    archive: { url: '', sha256: sha(other.archive), size: other.archive.length }, ...over,
  });
  const serve = async (asked: string, release: HubRelease) => {
    server = await serveRoutes({
      [`/api/v1/skits/alice/kit/releases/${asked}`]: { headers: { 'content-type': 'application/json' }, body: JSON.stringify(release) },
      [`/r/alice/kit/${release.version}.tgz`]: { body: other.archive },
    });
    return new HubClient({ url: server.origin });
  };

  it('refuses another SKIT, another version than the exact one asked for, a version that is a path, and malformed hashes', async () => {
    const cases: [string, Partial<HubRelease>, RegExp][] = [
      ['1.0.0', { skitId: 'alice/other' }, /answered with "alice\/other"/],
      ['1.0.0', { version: '2.0.0' }, /with version 2\.0\.0/],
      ['latest', { version: '1/../../../../escaped' }, /that is not one/],
      ['1.0.0', { bundleHash: 'sha256:../x' }, /malformed hash/],
    ];
    for (const [asked, over, message] of cases) {
      const client = await serve(asked, releaseOf(over));
      await assert.rejects(fetchRelease(client, 'alice/kit', asked), (e) => isSfError(e, 'SF_E_FETCH') && message.test(e.message), JSON.stringify(over));
      await server!.close();
      server = undefined;
    }
  });

  it('refuses an archive whose README names another SKIT, though its hashes match the record (and leaves nothing)', async () => {
    const client = await serve('1.0.0', releaseOf({}));
    const release = await fetchRelease(client, 'alice/kit', '1.0.0');
    const tmp = await tempDir('sf-release-');
    try {
      const dest = join(tmp.path, 'kit');
      await assert.rejects(downloadRelease(client, release, dest), (e) => isSfError(e, 'SF_E_FETCH') && /is the SKIT alice\/other/.test(e.message));
      assert.equal(existsSync(dest), false);
    } finally {
      await tmp.cleanup();
    }
  });

  it('says so when a release is quarantined (only its owners can fetch one)', () => {
    assert.equal(quarantineWarning(releaseOf({})), undefined);
    const warning = quarantineWarning(releaseOf({ quarantined: { reason: 'compromised', replacement: 'alice/kit@1.0.1' } }));
    assert.equal(warning?.code, 'HUB_RELEASE_QUARANTINED');
    assert.match(warning!.message, /quarantined on the hub: compromised/);
  });
});
