import type { OtlpAttributes, OtlpLogRecord, OtlpRequest, OtlpSpan } from '../../core/telemetry/otlp/index.js';
import type { RepositoryResolution } from '../projections/rows.js';
import type { RepositoryLinkStore } from '../storage/telemetry-ports.js';
import { str } from './values.js';

/** The lookups the resolver makes: the account's links, or the answers recorded at ingest. */
export type RepositoryLookup = Pick<RepositoryLinkStore, 'byFingerprint'> & { get(accountId: string, repositoryId: string): unknown };

const HINT_KEYS = ['forge.repository.fingerprint', 'forge.worktree.fingerprint', 'forge.workspace.fingerprint'] as const;

/**
 * The repository identity the hub attaches at ingest (spec "OTLP ingest gateway": server-
 * authoritative identity): every repository hint of the request that resolves through the
 * account's links now, as `id:<claimed id>` / `fp:<fingerprint>` -> repository id. Stored with the
 * raw batch, it makes the normalizer's answer the same live and on rebuild, whenever repositories
 * are linked (see `recordedLinks`). Metrics carry no events and need none.
 */
export function resolveAtIngest(links: RepositoryLinkStore, accountId: string, req: OtlpRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  const look = (attrs: OtlpAttributes) => {
    const claimed = str(attrs, 'forge.repository.id');
    if (claimed !== undefined && !seen.has(`id:${claimed}`)) {
      seen.add(`id:${claimed}`);
      if (links.get(accountId, claimed)) out[`id:${claimed}`] = claimed;
    }
    for (const k of HINT_KEYS) {
      const fp = str(attrs, k);
      if (fp === undefined || seen.has(`fp:${fp}`)) continue;
      seen.add(`fp:${fp}`);
      const id = links.byFingerprint(accountId, fp);
      if (id) out[`fp:${fp}`] = id;
    }
  };
  if (req.signal === 'metrics') return out;
  for (const group of req.resources) {
    look(group.resource.attributes);
    for (const scope of group.scopes) {
      for (const item of scope.items as (OtlpLogRecord | OtlpSpan)[]) {
        look(item.attributes);
        if ('events' in item) for (const ev of item.events) look(ev.attributes);
      }
    }
  }
  return out;
}

/** The lookups of a batch's recorded ingest-time resolution (see `resolveAtIngest`). */
export function recordedLinks(recorded: Record<string, string>): RepositoryLookup {
  return {
    get: (_accountId, repositoryId) => recorded[`id:${repositoryId}`],
    byFingerprint: (_accountId, fp) => recorded[`fp:${fp}`],
  };
}

/**
 * Server-authoritative repository identity. Client attributes are hints only: a claimed
 * `forge.repository.id` counts when that repository is linked to the authenticated account, and
 * repository/worktree fingerprints resolve through the account's links. Anything else — another
 * account's repository, an unknown fingerprint, no hint — is `repo_unresolved`; the hub never
 * guesses. Memoized per batch (hints repeat on every record).
 */
export function repositoryResolver(links: RepositoryLookup, accountId: string) {
  const cache = new Map<string, { repositoryId?: string; resolution: RepositoryResolution }>();
  const resolveOne = (claimed: string | undefined, fps: (string | undefined)[]) => {
    if (claimed && links.get(accountId, claimed)) return { repositoryId: claimed, resolution: 'resolved' as const };
    for (const fp of fps) {
      const id = fp ? links.byFingerprint(accountId, fp) : undefined;
      if (id) return { repositoryId: id, resolution: 'resolved' as const };
    }
    return { resolution: 'repo_unresolved' as const };
  };
  const resolve = (record: OtlpAttributes, resource: OtlpAttributes) => {
    const claimed = str(record, 'forge.repository.id') ?? str(resource, 'forge.repository.id');
    const fps = [
      str(record, 'forge.repository.fingerprint'),
      str(resource, 'forge.repository.fingerprint'),
      str(record, 'forge.worktree.fingerprint'),
      str(resource, 'forge.worktree.fingerprint'),
      str(record, 'forge.workspace.fingerprint'),
      str(resource, 'forge.workspace.fingerprint'),
    ];
    const key = `${claimed ?? ''}\u0000${fps.map((f) => f ?? '').join('\u0000')}`;
    let hit = cache.get(key);
    if (!hit) cache.set(key, (hit = resolveOne(claimed, fps)));
    return hit;
  };
  // most records carry no hint of their own: the answer is then the resource's, worked out once per resource
  let lastResource: OtlpAttributes | undefined;
  let lastAnswer: ReturnType<typeof resolve> | undefined;
  return (record: OtlpAttributes, resource: OtlpAttributes) => {
    const hinted =
      record['forge.repository.id'] !== undefined || record['forge.repository.fingerprint'] !== undefined ||
      record['forge.worktree.fingerprint'] !== undefined || record['forge.workspace.fingerprint'] !== undefined;
    if (hinted) return resolve(record, resource);
    if (resource !== lastResource || !lastAnswer) {
      lastAnswer = resolve(record, resource);
      lastResource = resource;
    }
    return lastAnswer;
  };
}
