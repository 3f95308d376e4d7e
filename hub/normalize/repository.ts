import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import type { RepositoryResolution } from '../projections/rows.js';
import type { RepositoryLinkStore } from '../storage/telemetry-ports.js';
import { str } from './values.js';

/**
 * Server-authoritative repository identity. Client attributes are hints only: a claimed
 * `forge.repository.id` counts when that repository is linked to the authenticated account, and
 * repository/worktree fingerprints resolve through the account's links. Anything else — another
 * account's repository, an unknown fingerprint, no hint — is `repo_unresolved`; the hub never
 * guesses. Memoized per batch (hints repeat on every record).
 */
export function repositoryResolver(links: RepositoryLinkStore, accountId: string) {
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
