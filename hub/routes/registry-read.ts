import { Hono } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { compareCodeUnits } from '../../core/skit/tree.js';
import { roleOnOwner } from '../auth/access.js';
import { isAdmin, type HubEnv, type Principal } from '../auth/principal.js';
import { contentTypeOf } from '../registry/http-cache.js';
import { assertDownloadable, downloadAccess, latestRelease, reader, visibleRelease, visibleSkit } from '../registry/lookup.js';
import { matchesQuery, type SearchQuery } from '../registry/search.js';
import { releaseSummary, releaseView, skitSummary } from '../registry/views.js';
import { compareSemver } from '../../core/skit/semver.js';
import type { HubStorage, LatestSummary, SkitRecord } from '../storage/ports.js';
import { queryParams } from './query-params.js';
import { originOf, restSegments } from './registry-context.js';
import { sendBlob } from './send-blob.js';

const MAX_PAGE = 200;

/** Public SKITs are listed to everyone; unlisted and private ones only to the owner's members and admins. */
function listedTo(storage: HubStorage, p: Principal, skit: SkitRecord): boolean {
  if (skit.visibility === 'public') return true;
  if (isAdmin(p)) return true;
  return roleOnOwner(storage.accounts, p, skit.owner) !== null;
}

function pageNumber(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min)) throw new SfError('SF_E_USAGE', `${name}=${value.length > 20 ? `${value.slice(0, 20)}...` : value} is not an integer of at least ${min}`, { hint: 'use limit=1..200, and after=<the last id of the previous page> (or offset>=0)' });
  return Math.min(n, max);
}


interface ListedSkit {
  skit: SkitRecord;
  latest: LatestSummary | undefined;
}

/**
 * The SKITs `p` is shown that match `query`, in id order. It reads SKIT records and, for a text
 * query, the latest-release summaries the store keeps; never releases. An owner filter scans only
 * that owner's ids.
 */
function* listed(storage: HubStorage, p: Principal, query: SearchQuery): Generator<ListedSkit> {
  const cheap = { owner: query.owner, tag: query.tag };
  for (const skit of storage.registry.scanSkits(query.owner ? { prefix: `${query.owner.toLowerCase()}/` } : {})) {
    if (!listedTo(storage, p, skit) || !matchesQuery(skit, undefined, cheap)) continue;
    const latest = query.text ? storage.registry.latestSummary(skit.id) : undefined;
    if (query.text && !matchesQuery(skit, latest, query)) continue;
    yield { skit, latest };
  }
}

/**
 * One page of `listed`: the `limit` matches after the `after` id (or from `offset`), with the
 * total and the page's position among all matches, which is why every match is counted.
 */
function listPage(storage: HubStorage, p: Principal, query: SearchQuery, at: { after?: string; offset: number }, limit: number) {
  let total = 0;
  let before = 0;
  const page: ListedSkit[] = [];
  for (const found of listed(storage, p, query)) {
    const index = total++;
    if (at.after !== undefined && compareCodeUnits(found.skit.id, at.after) <= 0) before++;
    else if (page.length < limit && (at.after !== undefined || index >= at.offset)) page.push(found);
  }
  // with a cursor past every match there is no page (start -1, as `findIndex` answered)
  const start = at.after === undefined ? at.offset : before < total ? before : -1;
  for (const item of page) item.latest ??= storage.registry.latestSummary(item.skit.id);
  return { total, start, page, more: start >= 0 && start + limit < total };
}

const LIST_PARAMS = ['q', 'owner', 'tag', 'limit', 'after', 'offset'] as const;

/** List/search, SKIT detail, releases, and the files of a release. */
export const registryReadRoutes = new Hono<HubEnv>()
  .get('/api/v1/skits', (c) => {
    const p = reader(c);
    const storage = c.get('storage');
    // a misspelt filter (`?ownr=bob`) would otherwise answer with every SKIT
    const q = Object.fromEntries(queryParams(c, LIST_PARAMS, 'docs/hub-registry.md')) as Partial<Record<(typeof LIST_PARAMS)[number], string>>;
    const limit = pageNumber('limit', q.limit, 50, 1, MAX_PAGE);
    const offset = pageNumber('offset', q.offset, 0, 0, Number.MAX_SAFE_INTEGER);
    // keyset paging: `after` is the last id of the previous page, so SKITs published between pages
    // neither repeat nor go missing (an offset shifts under them)
    const { total, start, page, more } = listPage(storage, p, { text: q.q, owner: q.owner, tag: q.tag }, { after: q.after, offset }, limit);
    const origin = originOf(c);
    const next = more ? page[page.length - 1].skit.id : undefined;
    if (next !== undefined) {
      const link = new URL(c.req.url);
      link.searchParams.delete('offset');
      link.searchParams.set('after', next);
      c.header('link', `<${link.pathname}${link.search}>; rel="next"`);
    }
    return c.json({ total, offset: Math.max(start, 0), limit, ...(next !== undefined ? { next } : {}), skits: page.map(({ skit, latest }) => skitSummary(origin, skit, latest)) });
  })
  .get('/api/v1/skits/:owner/:name', (c) => {
    const storage = c.get('storage');
    const skit = visibleSkit(storage, reader(c), c.req.param('owner'), c.req.param('name'));
    const releases = storage.registry.listReleases(skit.id).sort((a, b) => compareSemver(b.version, a.version));
    const latest = latestRelease(storage, skit.id);
    const origin = originOf(c);
    return c.json({
      ...skitSummary(origin, skit, latest),
      releases: releases.map((r) => releaseSummary(origin, r)),
      latest: latest ? releaseView(origin, latest) : null,
    });
  })
  .get('/api/v1/skits/:owner/:name/releases', (c) => {
    const storage = c.get('storage');
    const skit = visibleSkit(storage, reader(c), c.req.param('owner'), c.req.param('name'));
    const origin = originOf(c);
    const releases = storage.registry.listReleases(skit.id).sort((a, b) => compareSemver(b.version, a.version));
    return c.json({ skitId: skit.id, releases: releases.map((r) => releaseSummary(origin, r)) });
  })
  .get('/api/v1/skits/:owner/:name/releases/:version', (c) => {
    const storage = c.get('storage');
    const skit = visibleSkit(storage, reader(c), c.req.param('owner'), c.req.param('name'));
    const release = visibleRelease(storage, skit, c.req.param('version'));
    return c.json({ ...releaseView(originOf(c), release, { withFiles: true }), skitVisibility: skit.visibility });
  })
  .get('/api/v1/skits/:owner/:name/releases/:version/files', (c) => {
    const storage = c.get('storage');
    const skit = visibleSkit(storage, reader(c), c.req.param('owner'), c.req.param('name'));
    const release = visibleRelease(storage, skit, c.req.param('version'));
    return c.json({ skitId: skit.id, version: release.version, bundleHash: release.bundleHash, files: release.files });
  })
  .get('/api/v1/skits/:owner/:name/releases/:version/files/*', async (c) => {
    const storage = c.get('storage');
    const skit = visibleSkit(storage, reader(c), c.req.param('owner'), c.req.param('name'));
    const release = visibleRelease(storage, skit, c.req.param('version'));
    // segments: api v1 skits owner name releases version files <path...>
    const path = restSegments(c, 8)?.join('/');
    const file = path === undefined ? undefined : release.files.find((f) => f.path === path.normalize('NFC'));
    if (!file) throw new SfError('SF_E_NOT_FOUND', `${skit.id}@${release.version} has no file ${path ?? ''}`, { hint: 'list the files with …/files' });
    assertDownloadable(storage, c.get('principal'), skit, release);
    // cached as the /r/ downloads are: a quarantined release's files by no cache, a private SKIT's privately
    return sendBlob(c, {
      ...downloadAccess(skit, release),
      sha256: file.sha256,
      tag: `sha256:${file.sha256}`,
      contentType: contentTypeOf(file.path),
      mutable: c.req.param('version') === 'latest',
      headers: { 'content-security-policy': "default-src 'none'; sandbox" },
    });
  });
