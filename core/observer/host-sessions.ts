import { hostOf } from '../telemetry/normalize/index.js';
import type { HostId } from '../telemetry/normalize/types.js';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';

/**
 * Session registration from a host's own records, for hosts Forge runs no per-call hook in
 * (Codex, Claude Code): when the host's OTLP logs name a session the registry does not know, the
 * observer looks up the working directory the host itself wrote for that session (exact evidence,
 * not a guess) and registers it, so project-scope skills resolve and repositories are
 * fingerprinted like for hosts with a hook or plugin.
 */

/** Host session ids are UUID-like tokens, never paths: checked before one is used in a file name. */
export const isHostSessionId = (id: string): boolean => /^[0-9A-Za-z-]{8,128}$/.test(id);

/** What a host recorded about one of its sessions. */
export interface FoundSession {
  /** absolute working directory */
  cwd: string;
  /** the host process, when its record names it */
  pid?: number;
  hostVersion?: string;
}

/** How one host's sessions are found. */
export interface HostSessionLookup {
  host: HostId;
  /** the log record attribute that carries the session id */
  attribute: string;
  /** what the host recorded for session `id`, or undefined when nothing says (yet) */
  find(id: string): Promise<FoundSession | undefined>;
}

/** What the source needs of the session registry. */
export interface SessionSink {
  /** refreshes a known session (its expiry counts from its last telemetry); false when unknown */
  touch(host: HostId, id: string): boolean;
  register(host: HostId, id: string, found: FoundSession): Promise<unknown>;
}

/** The distinct session ids of `host` in a logs request. */
export function hostSessionIds(req: OtlpLogsRequest, host: HostId, attribute: string): string[] {
  const ids = new Set<string>();
  for (const r of req.resources) {
    for (const s of r.scopes) {
      if (hostOf(r.resource.attributes, s.scope.name) !== host) continue;
      for (const rec of s.items) if (typeof rec.attributes[attribute] === 'string') ids.add(rec.attributes[attribute] as string);
    }
  }
  return [...ids];
}

export interface RetryPolicy {
  /** lookups of an unknown id on consecutive requests before it is set aside */
  attempts: number;
  /** after that, one more lookup at most this often (a miss is never final) */
  cooldownMs: number;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 5, cooldownMs: 10 * 60_000 };
const MAX_MISSES = 10_000;
/**
 * Unknown sessions looked up per request at most: a lookup reads directories and files, and one
 * request naming thousands of unknown ids must not hold every host's telemetry behind it for
 * minutes. The rest are looked up on later requests (real requests name a handful).
 */
export const MAX_LOOKUPS_PER_REQUEST = 16;

/**
 * Registers the sessions of one host from its logs. A session the registry knows is only
 * touched. An unknown one is looked up; a miss (the host may not have written its record when
 * its first logs arrive) is retried on later requests, a few times in a row and then at most once
 * per cooldown, so a steady stream of logs for a session without a record costs little.
 */
export class HostSessionSource {
  private readonly misses = new Map<string, { attempts: number; last: number }>();

  constructor(
    private readonly lookup: HostSessionLookup,
    private readonly sink: SessionSink,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
    private readonly now: () => number = Date.now,
  ) {}

  async registerFrom(req: OtlpLogsRequest): Promise<void> {
    const { host } = this.lookup;
    const now = this.now();
    const due: string[] = [];
    for (const id of hostSessionIds(req, host, this.lookup.attribute)) {
      if (this.sink.touch(host, id)) continue;
      const miss = this.misses.get(id);
      if (miss && miss.attempts >= this.retry.attempts && now - miss.last < this.retry.cooldownMs) continue;
      due.push(id);
    }
    // ids never looked up go first: ones that missed before cannot starve them under the cap
    const fresh = due.filter((id) => !this.misses.has(id));
    for (const id of [...fresh, ...due.filter((id) => this.misses.has(id))].slice(0, MAX_LOOKUPS_PER_REQUEST)) {
      const miss = this.misses.get(id);
      const found = isHostSessionId(id) ? await this.lookup.find(id) : undefined;
      if (found) {
        this.misses.delete(id);
        await this.sink.register(host, id, found);
        continue;
      }
      if (!miss && this.misses.size >= MAX_MISSES) this.misses.clear();
      this.misses.set(id, { attempts: (miss?.attempts ?? 0) + 1, last: now });
    }
  }
}
