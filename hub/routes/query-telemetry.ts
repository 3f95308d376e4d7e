import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { LATEST_MS, parseRfc3339 } from '../../core/text/rfc3339.js';
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

const DAY_MS = 24 * 60 * 60 * 1000;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time parameter in epoch milliseconds. A date-only `to` (2026-08-09) means the whole of that
 * UTC day, on every endpoint: its last millisecond (usage reads whole days, and timeline and
 * evidence windows include their end).
 */
function timeParam(c: Context, name: 'from' | 'to', fallback: number): number {
  const v = c.req.query(name);
  if (v === undefined || v === '') return fallback;
  const ms = /^\d+$/.test(v) ? Number(v) : parseRfc3339(v);
  if (ms === undefined || !Number.isFinite(ms) || ms > LATEST_MS) {
    throw new SfError('SF_E_USAGE', `${name}=${v.length > 40 ? `${v.slice(0, 40)}...` : v} is not a time between 1970 and 9999`, { hint: 'use RFC 3339 (2026-08-09T00:00:00Z) or epoch milliseconds' });
  }
  return name === 'to' && DATE_ONLY.test(v) ? Math.min(ms + DAY_MS - 1, LATEST_MS) : ms;
}

function window(c: Context, now: number, defaultDays: number): { fromMs: number; toMs: number } {
  const toMs = timeParam(c, 'to', now + DAY_MS);
  const fromMs = timeParam(c, 'from', toMs - defaultDays * DAY_MS);
  if (fromMs > toMs) throw new SfError('SF_E_USAGE', 'from is after to', { hint: 'swap the values, or give a from earlier than to' });
  return { fromMs, toMs };
}

function intParam(c: Context, name: string, fallback: number, max: number): number {
  const v = c.req.query(name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new SfError('SF_E_USAGE', `${name} must be a positive integer`, { hint: `e.g. ${name}=100 (at most ${max})` });
  return Math.min(Number(v), max);
}

/** The account a query reads: the caller's own, or `?account=<login>` for admins. */
function queryAccount(c: Context<HubEnv>): UserRecord {
  const login = c.req.query('account');
  return login ? accountFor(c, login) : requireTelemetryReader(c);
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

  app.get('/api/v1/telemetry/repositories/:repo/timeline', (c) => {
    const user = queryAccount(c);
    const repositoryId = idParam(c, 'repo');
    const repo = c.get('storage').telemetry.repositories.get(user.id, repositoryId);
    if (!repo) throw new SfError('SF_E_NOT_FOUND', `no repository ${repositoryId} linked to ${user.login}`, { hint: 'list linked repositories at /api/v1/telemetry/accounts/<login>/repositories' });
    const { fromMs, toMs } = window(c, telemetry.now(), 90);
    const page = repositoryTimeline(telemetry.reader(), { accountId: user.id, repositoryId, fromMs, toMs, limit: intParam(c, 'limit', 500, 5000), cursor: c.req.query('cursor') });
    return c.json({ repository: { id: repo.id, name: repo.name }, ...page });
  });

  const usage = (c: Context<HubEnv>, skill?: string) => {
    const all = c.req.query('scope') === 'all';
    const user = all ? undefined : queryAccount(c);
    if (all && !isAdminPat(c)) throw new SfError('SF_E_FORBIDDEN', 'usage across all accounts needs an admin token', { hint: 'drop scope=all to see your own usage' });
    const { fromMs, toMs } = window(c, telemetry.now(), 30);
    const packageId = skitId(c);
    // contained skills of the latest release, listed only when the caller may see the SKIT
    const storage = c.get('storage');
    const skit = storage.registry.getSkit(packageId);
    const visible = skit !== undefined && canViewSkit(storage.accounts, c.get('principal'), skit);
    const releases = visible ? storage.registry.listReleases(packageId) : [];
    const latest = releases.reduce<(typeof releases)[number] | undefined>((a, r) => (!a || r.publishedAt > a.publishedAt ? r : a), undefined);
    return usageReport(telemetry.reader(), {
      packageId: safeId(packageId),
      ...(skill !== undefined ? { skillId: safeId(`${packageId}:${skill}`) } : {}),
      fromDay: new Date(fromMs).toISOString().slice(0, 10),
      toDay: new Date(toMs).toISOString().slice(0, 10),
      ...(user ? { accountId: user.id } : {}),
      containedSkills: latest?.skills.map((s) => s.id) ?? [],
    });
  };
  app.get('/api/v1/telemetry/skits/:owner/:name/usage', (c) => c.json(usage(c)));
  app.get('/api/v1/telemetry/skits/:owner/:name/skills/:skill/usage', (c) => c.json(usage(c, idParam(c, 'skill'))));

  app.get('/api/v1/telemetry/skits/:owner/:name/skills/:skill/evidence', (c) => {
    const user = queryAccount(c);
    const { fromMs, toMs } = window(c, telemetry.now(), 90);
    return c.json(skillEvidence(telemetry.reader(), user.id, safeId(`${skitId(c)}:${idParam(c, 'skill')}`), fromMs, toMs));
  });

  app.get('/api/v1/telemetry/health', (c) => {
    const user = queryAccount(c);
    return c.json(healthReport(c.get('storage').telemetry.health, user.id, telemetry.now(), telemetry.staleAfterMs, telemetry.queuedFor(user.id)));
  });

  app.get('/api/v1/telemetry/events/:id', (c) => {
    const user = queryAccount(c);
    const row = telemetry.reader().getEvent(user.id, idParam(c, 'id'));
    if (!row) throw new SfError('SF_E_NOT_FOUND', `no event ${idParam(c, 'id')}`, {
      hint: 'use an eventId from a timeline or evidence response of the same account (GET /api/v1/telemetry/repositories/<repo>/timeline)',
    });
    return c.json(row);
  });
  return app;
}
