import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { canViewSkit } from '../auth/access.js';
import type { HubEnv } from '../auth/principal.js';
import { safeId } from '../normalize/values.js';
import { accountFor, isAdminPat, requireTelemetryReader } from '../query/access.js';
import { skillEvidence } from '../query/evidence.js';
import { healthReport } from '../query/health.js';
import { repositoryTimeline } from '../query/timeline.js';
import { usageReport } from '../query/usage.js';
import type { UserRecord } from '../storage/ports.js';
import type { TelemetryService } from '../telemetry/service.js';
import { privateResponses } from './private-responses.js';
import { echo, intParam, queryParams, timeWindow, usageDays, type QueryParams } from './query-params.js';

/**
 * The caller and the query parameters of a telemetry read, in that order: an anonymous caller is
 * told to authenticate (401) before anything about its request.
 */
function readRequest(c: Context<HubEnv>, allowed: readonly string[]): { caller: UserRecord; params: QueryParams } {
  const caller = requireTelemetryReader(c);
  return { caller, params: queryParams(c, allowed) };
}

/** The account a query reads: the caller's own, or `?account=<login>` for admins. */
function queryAccount(c: Context<HubEnv>, params: QueryParams, caller: UserRecord): UserRecord {
  const login = params.get('account');
  return login !== undefined ? accountFor(c, login) : caller;
}

const ID = /^[\x21-\x7e]{1,128}$/;

/** A path parameter used in storage keys: printable ASCII, bounded (anything else cannot exist). */
function idParam(c: Context, name: string): string {
  const v = c.req.param(name) ?? '';
  if (!ID.test(v)) throw new SfError('SF_E_NOT_FOUND', `no ${name} ${JSON.stringify(v.slice(0, 40))}`, {
    hint: `check the ${name} in the URL: ids are 1-128 printable ASCII characters without spaces`,
  });
  return v;
}

const skitId = (c: Context) => `${idParam(c, 'owner')}/${idParam(c, 'name')}`;

/**
 * Telemetry query API over the live projection generation: repository timeline, per-SKIT and
 * per-skill usage, the skill evidence (incident) view, collector/adapter health, and single
 * events. Reading needs a personal access token; an account sees only its own telemetry.
 */
export function telemetryQueryRoutes(telemetry: TelemetryService): Hono<HubEnv> {
  const app = new Hono<HubEnv>();
  app.use('/api/v1/telemetry/*', privateResponses);

  app.get('/api/v1/telemetry/repositories/:repo/timeline', (c) => {
    const { caller, params } = readRequest(c, ['from', 'to', 'limit', 'cursor', 'account']);
    const user = queryAccount(c, params, caller);
    const repositoryId = idParam(c, 'repo');
    const repo = c.get('storage').telemetry.repositories.get(user.id, repositoryId);
    if (!repo) throw new SfError('SF_E_NOT_FOUND', `no repository ${repositoryId} linked to ${user.login}`, { hint: 'list linked repositories at /api/v1/telemetry/accounts/<login>/repositories' });
    const { fromMs, toMs, asked } = timeWindow(params, telemetry.now(), 90);
    const page = repositoryTimeline(telemetry.reader(), { accountId: user.id, repositoryId, fromMs, toMs, asked, limit: intParam(params, 'limit', 500, 5000), cursor: params.get('cursor') });
    return c.json({ repository: { id: repo.id, name: repo.name }, ...page });
  });

  const usage = (c: Context<HubEnv>, skill?: string) => {
    const { caller, params } = readRequest(c, ['from', 'to', 'scope', 'account']);
    const scope = params.get('scope') ?? 'account';
    if (scope !== 'account' && scope !== 'all') throw new SfError('SF_E_USAGE', `scope=${echo(scope)} is not a usage scope`, { hint: 'use scope=account (the default) or, with an admin token, scope=all' });
    if (scope === 'all') {
      if (!isAdminPat(c)) throw new SfError('SF_E_FORBIDDEN', 'usage across all accounts needs an admin token', { hint: 'drop scope=all to see your own usage' });
      if (params.has('account')) throw new SfError('SF_E_USAGE', 'account and scope=all ask for different things', { hint: 'drop account to count every account, or drop scope=all to count that account' });
    }
    const user = scope === 'all' ? undefined : queryAccount(c, params, caller);
    const { fromDay, toDay } = usageDays(params, telemetry.now(), 30);
    const packageId = skitId(c);
    // contained skills of the registry's latest release (highest version, stable preferred, not
    // quarantined: what `latest` answers everywhere), listed only when the caller may see the SKIT
    const storage = c.get('storage');
    const skit = storage.registry.getSkit(packageId);
    const visible = skit !== undefined && canViewSkit(storage.accounts, c.get('principal'), skit);
    const latest = visible ? storage.registry.latestRelease(packageId) : undefined;
    return usageReport(telemetry.reader(), {
      packageId: safeId(packageId),
      ...(skill !== undefined ? { skillId: safeId(`${packageId}:${skill}`) } : {}),
      fromDay,
      toDay,
      ...(user ? { accountId: user.id } : {}),
      containedSkills: latest?.skills.map((s) => s.id) ?? [],
    });
  };
  app.get('/api/v1/telemetry/skits/:owner/:name/usage', (c) => c.json(usage(c)));
  app.get('/api/v1/telemetry/skits/:owner/:name/skills/:skill/usage', (c) => c.json(usage(c, idParam(c, 'skill'))));

  app.get('/api/v1/telemetry/skits/:owner/:name/skills/:skill/evidence', (c) => {
    const { caller, params } = readRequest(c, ['from', 'to', 'account']);
    const user = queryAccount(c, params, caller);
    const { fromMs, toMs } = timeWindow(params, telemetry.now(), 90);
    return c.json(skillEvidence(telemetry.reader(), user.id, safeId(`${skitId(c)}:${idParam(c, 'skill')}`), fromMs, toMs));
  });

  app.get('/api/v1/telemetry/health', (c) => {
    const { caller, params } = readRequest(c, ['account']);
    const user = queryAccount(c, params, caller);
    const conflicts = telemetry.reader().duplicateConflicts(user.id);
    return c.json(healthReport(c.get('storage').telemetry.health, user.id, telemetry.now(), telemetry.staleAfterMs, telemetry.queuedFor(user.id), conflicts));
  });

  app.get('/api/v1/telemetry/events/:id', (c) => {
    const { caller, params } = readRequest(c, ['account', 'device']);
    const user = queryAccount(c, params, caller);
    // event ids are unique per device: `device` names whose event (default: the lowest device id's)
    const device = params.get('device');
    const row = device === undefined || ID.test(device) ? telemetry.reader().getEvent(user.id, idParam(c, 'id'), device) : undefined;
    if (!row) throw new SfError('SF_E_NOT_FOUND', `no event ${idParam(c, 'id')}`, {
      hint: 'use an eventId from a timeline or evidence response of the same account (GET /api/v1/telemetry/repositories/<repo>/timeline)',
    });
    return c.json(row);
  });
  return app;
}
