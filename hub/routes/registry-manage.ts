import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { canManageSkit } from '../auth/access.js';
import { isAdmin, requireScope, type HubEnv, type Principal } from '../auth/principal.js';
import { latestRelease, visibleSkit } from '../registry/lookup.js';
import { isVersion } from '../registry/names.js';
import { VISIBILITIES } from '../registry/publish.js';
import { parseTags } from '../registry/search.js';
import { releaseSummary, skitSummary } from '../registry/views.js';
import type { DeprecationFlag, QuarantineFlag, SkitRecord, Visibility } from '../storage/ports.js';
import { checkFields, readJson } from './read-json.js';
import { originOf } from './registry-context.js';

type FlagInput = Record<string, unknown> | null | undefined;

const text = (v: unknown, field: string, max: number): string => {
  if (typeof v !== 'string' || v.trim() === '' || v.length > max) {
    throw new SfError('SF_E_USAGE', `${field} must be a non-empty string of at most ${max} characters`, {
      hint: `send ${field} as a JSON string of 1-${max} characters`,
    });
  }
  return v;
};

const replacementOf = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !/^[a-z0-9-]+\/[a-z0-9-]+(@[0-9A-Za-z.-]+)?$/.test(v)) {
    throw new SfError('SF_E_USAGE', 'replacement must be owner/name or owner/name@version', {
      hint: 'e.g. "replacement": "acme/new-kit" or "acme/new-kit@2.0.0" (lowercase), or leave it out',
    });
  }
  return v;
};


/** Parses `deprecated`: an object sets it, null clears it, absent leaves it. */
function deprecationOf(input: FlagInput, current: DeprecationFlag | undefined): DeprecationFlag | undefined {
  if (input === undefined) return current;
  if (input === null) return undefined;
  checkFields(input, ['message', 'replacement'], 'deprecated.');
  const replacement = replacementOf(input.replacement);
  return { message: text(input.message, 'deprecated.message', 1024), ...(replacement ? { replacement } : {}), at: new Date().toISOString() };
}

/** Parses `quarantined` like `deprecated`; a quarantine an admin set can only be lifted or changed by an admin. */
function quarantineOf(input: FlagInput, current: QuarantineFlag | undefined, p: Principal): QuarantineFlag | undefined {
  if (input === undefined) return current;
  if (current?.byAdmin && !isAdmin(p)) {
    throw new SfError('SF_E_FORBIDDEN', 'a hub administrator quarantined this; only an administrator can change that', { hint: 'contact the hub administrators' });
  }
  if (input === null) return undefined;
  checkFields(input, ['reason', 'replacement'], 'quarantined.');
  const replacement = replacementOf(input.replacement);
  return { reason: text(input.reason, 'quarantined.reason', 1024), ...(replacement ? { replacement } : {}), at: new Date().toISOString(), ...(isAdmin(p) ? { byAdmin: true } : {}) };
}

/** The SKIT if the caller may manage it: invisible ones are the uniform 404, visible ones without the owner role a 403. */
function managedSkit(c: Context<HubEnv>): { p: Principal; skit: SkitRecord } {
  const p = requireScope(c, 'registry:write');
  const storage = c.get('storage');
  const skit = visibleSkit(storage, p, c.req.param('owner')!, c.req.param('name')!);
  if (!canManageSkit(storage.accounts, p, skit.owner)) {
    throw new SfError('SF_E_FORBIDDEN', `only an owner of ${skit.owner} or a hub administrator can change ${skit.id}`, { hint: 'ask an owner' });
  }
  return { p, skit };
}

function flagBody(v: unknown, field: string): FlagInput {
  if (v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v))) return v as FlagInput;
  throw new SfError('SF_E_USAGE', `${field} must be an object or null`, { hint: `e.g. {"${field}": {"${field === 'deprecated' ? 'message' : 'reason'}": "...", "replacement": "owner/name"}}` });
}

/** Settings of a SKIT and flags of its releases (owner role or admin). */
export const registryManageRoutes = new Hono<HubEnv>()
  .patch('/api/v1/skits/:owner/:name', async (c) => {
    const { p, skit } = managedSkit(c);
    const body = await readJson<Record<string, unknown>>(c, ['visibility', 'description', 'tags', 'deprecated', 'quarantined']);
    const next: SkitRecord = { ...skit };
    if (body.visibility !== undefined) {
      if (!VISIBILITIES.includes(body.visibility as Visibility)) throw new SfError('SF_E_USAGE', `visibility must be one of ${VISIBILITIES.join(', ')}`, { hint: 'e.g. {"visibility": "unlisted"}' });
      next.visibility = body.visibility as Visibility;
    }
    if (body.description !== undefined) next.description = body.description === null ? '' : text(body.description, 'description', 1024);
    if (body.tags !== undefined) next.tags = parseTags(body.tags) ?? [];
    next.deprecated = deprecationOf(flagBody(body.deprecated, 'deprecated'), skit.deprecated);
    next.quarantined = quarantineOf(flagBody(body.quarantined, 'quarantined'), skit.quarantined, p);
    const storage = c.get('storage');
    storage.registry.putSkit(next);
    return c.json(skitSummary(originOf(c), next, latestRelease(storage, next.id)));
  })
  .patch('/api/v1/skits/:owner/:name/releases/:version', async (c) => {
    const { p, skit } = managedSkit(c);
    const storage = c.get('storage');
    const version = c.req.param('version');
    const release = isVersion(version) ? storage.registry.getRelease(skit.id, version) : undefined;
    if (!release) throw new SfError('SF_E_NOT_FOUND', `release ${version} of ${skit.id} not found`, { hint: `list the releases with GET /api/v1/skits/${skit.id}/releases` });
    const body = await readJson<Record<string, unknown>>(c, ['deprecated', 'quarantined']);
    const updated = storage.registry.updateReleaseFlags(skit.id, release.version, {
      deprecated: deprecationOf(flagBody(body.deprecated, 'deprecated'), release.deprecated),
      quarantined: quarantineOf(flagBody(body.quarantined, 'quarantined'), release.quarantined, p),
    });
    return c.json(releaseSummary(originOf(c), updated!));
  });
