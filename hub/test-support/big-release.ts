import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { packSkit, twoSkillTree } from '../../test-support/skit-archive.js';
import { issueToken } from '../auth/tokens.js';
import type { RunningHub } from '../serve.js';

/** The release archive as the hub's publish answer describes it. */
export interface PublishedArchive {
  url: string;
  sha256: string;
  size: number;
}

/**
 * Publishes alice/kit 1.0.0 to a running hub over HTTP, with a 400 KB reference file that barely
 * compresses, so the archive (over 200 KB) spans many TCP reads: for tests of interrupted and
 * ranged downloads.
 */
export async function publishBigRelease(hub: RunningHub): Promise<PublishedArchive> {
  const user = hub.storage.accounts.createUser('alice', false);
  const token = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 't', scopes: ['registry:read', 'registry:write'] }).secret;
  const kit = await packSkit(twoSkillTree('alice/kit', { 'skills/review/references/data.txt': randomBytes(300_000).toString('base64') }));
  const put = await fetch(`${hub.url}/api/v1/skits/alice/kit/releases/1.0.0`, {
    method: 'PUT',
    body: new Uint8Array(kit.archive),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
  });
  await kit.cleanup();
  assert.equal(put.status, 201, await put.clone().text());
  const archive = ((await put.json()) as { release: { archive: PublishedArchive } }).release.archive;
  assert.ok(archive.size > 200_000, `archive of ${archive.size} bytes`);
  return archive;
}
