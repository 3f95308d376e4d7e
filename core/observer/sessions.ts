import { realpath } from 'node:fs/promises';
import type { Heartbeat, Register, Unregister } from '../../schemas/generated/observer-socket-message.js';
import { hasErrno } from '../errors/index.js';
import type { HostId, SessionInfo } from '../telemetry/normalize/index.js';
import type { RepositoryLink } from './config.js';
import { pidAlive } from '../runtime/processes.js';
import { repoIdentity, type RepoIdentity } from './repo/fingerprint.js';
import { gitFacts } from './repo/git-facts.js';

/**
 * The session registry: adapters register each active host session (host session id, pid, cwd,
 * agent, turn ids) and the observer resolves the session's repository once, at registration.
 * The normalizer asks it synchronously for a session's cwd and fingerprints. Sessions whose pid
 * died or that stopped heart-beating are pruned. The same session id registered from two
 * different directories is ambiguous and stays repo_unresolved.
 */

export interface RegisteredSession {
  agent: HostId;
  sessionId: string;
  pid?: number;
  cwd: string;
  hostVersion?: string;
  turnIds: string[];
  registeredAt: number;
  lastSeen: number;
  identity: RepoIdentity;
  ambiguous: boolean;
}

const MAX_TURN_IDS = 256;

export class SessionRegistry {
  private readonly sessions = new Map<string, RegisteredSession>();
  private links: RepositoryLink[] = [];

  constructor(private readonly key: Buffer, private readonly ttlMs = 12 * 3600_000, private readonly now: () => number = Date.now) {}

  /** Replaces the `sf observe link` mappings (paths are canonicalized). */
  async setLinks(links: readonly RepositoryLink[]): Promise<void> {
    this.links = await Promise.all(links.map(async (l) => ({ ...l, path: await realpath(l.path).catch(() => l.path) })));
  }

  private static key(agent: string, sessionId: string): string {
    return `${agent}\u0000${sessionId}`;
  }

  /** Registers (or re-registers) a session and resolves its repository. */
  async register(msg: Register): Promise<RegisteredSession> {
    let canonical: string;
    try {
      canonical = await realpath(msg.cwd);
    } catch (e) {
      if (!(hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES'))) throw e;
      canonical = msg.cwd;
    }
    const facts = await gitFacts(canonical);
    const identity = repoIdentity(this.key, facts?.canonicalCwd ?? canonical, facts, this.links);
    const k = SessionRegistry.key(msg.agent, msg.session_id);
    const prior = this.sessions.get(k);
    const now = this.now();
    const s: RegisteredSession = {
      agent: msg.agent, sessionId: msg.session_id, ...(msg.pid ? { pid: msg.pid } : {}), cwd: canonical,
      ...(msg.host_version ? { hostVersion: msg.host_version } : {}),
      turnIds: [...new Set([...(prior?.turnIds ?? []), ...(msg.turn_ids ?? [])])].slice(-MAX_TURN_IDS),
      registeredAt: prior?.registeredAt ?? now, lastSeen: now, identity,
      ambiguous: (prior?.ambiguous ?? false) || (prior !== undefined && prior.cwd !== canonical),
    };
    this.sessions.set(k, s);
    return s;
  }

  /** Refreshes a session; false when it is not registered (the adapter should register again). */
  heartbeat(msg: Heartbeat): boolean {
    const s = this.sessions.get(SessionRegistry.key(msg.agent, msg.session_id));
    if (!s) return false;
    s.lastSeen = this.now();
    if (msg.turn_ids?.length) s.turnIds = [...new Set([...s.turnIds, ...msg.turn_ids])].slice(-MAX_TURN_IDS);
    return true;
  }

  unregister(msg: Unregister): boolean {
    return this.sessions.delete(SessionRegistry.key(msg.agent, msg.session_id));
  }

  /** What the normalizer needs about a session (undefined: unregistered). */
  info(agent: HostId, sessionId: string | undefined): SessionInfo | undefined {
    if (!sessionId) return undefined;
    const s = this.sessions.get(SessionRegistry.key(agent, sessionId));
    if (!s) return undefined;
    const resolved = s.identity.resolved && !s.ambiguous;
    return {
      cwd: s.cwd,
      fingerprints: resolved ? s.identity.fingerprints : {},
      repositoryResolved: resolved,
      ...(resolved && s.identity.head ? { headRevision: s.identity.head } : {}),
    };
  }

  /** Drops sessions whose process is gone or that were silent longer than the TTL. */
  prune(): number {
    const now = this.now();
    let n = 0;
    for (const [k, s] of this.sessions) {
      if (now - s.lastSeen > this.ttlMs || (s.pid !== undefined && !pidAlive(s.pid))) {
        this.sessions.delete(k);
        n++;
      }
    }
    return n;
  }

  list(): RegisteredSession[] {
    return [...this.sessions.values()];
  }
}
