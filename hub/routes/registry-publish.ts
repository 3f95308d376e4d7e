import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { requireScope, type HubEnv } from '../auth/principal.js';
import { readUploadBody } from '../registry/body.js';
import { latestRelease } from '../registry/lookup.js';
import { planPublish, publishRelease } from '../registry/publish.js';
import { parseTags } from '../registry/search.js';
import { releaseView, skitSummary } from '../registry/views.js';
import type { Visibility } from '../storage/ports.js';
import { queryParams } from './query-params.js';
import { originOf } from './registry-context.js';

const BUNDLE_HASH = /^sha256:[0-9a-f]{64}$/;
const MAX_DESCRIPTION = 1024;

/**
 * `PUT|POST /api/v1/skits/:owner/:name/releases/:version`, body = the release archive (tar,
 * tar.gz or zip). Query: `visibility` (first publish; default public), `description`, `tags`;
 * any other, or one given twice, is a 400.
 * Header `X-Forge-Bundle-Hash`: the bundle hash the client computed; a mismatch is a 422.
 */
async function publish(c: Context<HubEnv>) {
  const p = requireScope(c, 'registry:write');
  const storage = c.get('storage');
  const { limits } = c.get('registry');
  // a misspelt `visibility` must not publish a public release, which cannot be taken back
  const q = queryParams(c, ['visibility', 'description', 'tags'], 'docs/hub-registry.md');
  const description = q.get('description');
  if (description !== undefined && description.length > MAX_DESCRIPTION) {
    throw new SfError('SF_E_USAGE', `the description is longer than ${MAX_DESCRIPTION} characters`, { hint: 'shorten it' });
  }
  const plan = planPublish(storage, limits, p, {
    owner: c.req.param('owner')!,
    name: c.req.param('name')!,
    version: c.req.param('version')!,
    visibility: q.get('visibility') as Visibility | undefined,
    description,
    tags: parseTags(q.get('tags')),
  });
  const expected = c.req.header('x-forge-bundle-hash');
  if (expected !== undefined && !BUNDLE_HASH.test(expected)) {
    throw new SfError('SF_E_USAGE', 'X-Forge-Bundle-Hash must be sha256:<64 lowercase hex>', { hint: 'send the bundle hash `sf skit hash` prints, or leave the header out' });
  }
  const body = await readUploadBody(c.req.raw, limits.maxUploadBytes);
  if (body.length === 0) {
    throw new SfError('SF_E_USAGE', 'the upload is empty', { hint: 'send the release archive (.tgz, .tar or .zip) as the request body' });
  }
  const { release, skit, created } = await publishRelease(storage, limits, p, plan, body, expected);
  const origin = originOf(c);
  return c.json({ created, skit: skitSummary(origin, skit, latestRelease(storage, skit.id)), release: releaseView(origin, release) }, 201);
}

export const registryPublishRoutes = new Hono<HubEnv>()
  .put('/api/v1/skits/:owner/:name/releases/:version', publish)
  .post('/api/v1/skits/:owner/:name/releases/:version', publish);
