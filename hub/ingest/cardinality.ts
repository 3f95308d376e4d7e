import { createHash } from 'node:crypto';

/**
 * Distinct values per attribute key per account per window (reliability-anchors.md #56, the
 * CVE-2023-45142 class): once a key has taken `maxDistinct` different values in the current
 * window, further new values fold into OTHER_VALUE.
 *
 * Memory is bounded whatever a client sends: per account, at most `maxKeys` keys outside the
 * registry vocabulary are tracked (registry keys are a fixed set and never count against it, so
 * free-form keys cannot crowd them out), each remembers at most `maxDistinct` values, and values
 * longer than VALUE_DIGEST_OVER are remembered by a fixed-size digest. A new value under a key
 * that could not be tracked folds. The least recently active account is forgotten first.
 */

export const OTHER_VALUE = '__other__';

/** Values longer than this are remembered by their sha256 (base64, 44 characters), not as sent. */
const VALUE_DIGEST_OVER = 64;

interface AccountWindow {
  startedAt: number;
  keys: Map<string, Set<string>>;
  /** keys tracked that are outside the registry vocabulary */
  freeKeys: number;
}

/** The per-request view of one account's window (looked up once per batch). */
export interface CardinalityScope {
  /** `value`, or OTHER_VALUE when `key` is already at its distinct-value limit (or past the key limit) */
  admit(key: string, value: string): string;
  /** values folded into OTHER_VALUE through this scope */
  readonly folded: number;
}

export interface CardinalityLimits {
  maxDistinct: number;
  windowMs: number;
  maxAccounts: number;
  /** keys outside `registered` tracked per account and window */
  maxKeys: number;
  /** the bounded key vocabulary (the registry's) that never counts against `maxKeys` */
  registered: ReadonlySet<string>;
}

const remembered = (value: string): string => (value.length > VALUE_DIGEST_OVER ? createHash('sha256').update(value).digest('base64') : value);

export class CardinalityGuard {
  private readonly accounts = new Map<string, AccountWindow>();
  private readonly limits: CardinalityLimits;

  constructor(
    maxDistinct: number,
    windowMs: number,
    maxAccounts: number,
    private readonly now: () => number = Date.now,
    more: { maxKeys?: number; registered?: ReadonlySet<string> } = {},
  ) {
    this.limits = { maxDistinct, windowMs, maxAccounts, maxKeys: more.maxKeys ?? 256, registered: more.registered ?? new Set() };
  }

  scope(accountId: string): CardinalityScope {
    const t = this.now();
    const { maxDistinct: max, windowMs, maxAccounts, maxKeys, registered } = this.limits;
    let w = this.accounts.get(accountId);
    if (w) this.accounts.delete(accountId); // re-inserted below: Map order is the LRU order
    if (!w || t - w.startedAt >= windowMs) w = { startedAt: t, keys: new Map(), freeKeys: 0 };
    this.accounts.set(accountId, w);
    while (this.accounts.size > maxAccounts) this.accounts.delete(this.accounts.keys().next().value as string);
    const win = w;
    let folded = 0;
    return {
      admit(key, value) {
        let seen = win.keys.get(key);
        if (!seen) {
          const free = !registered.has(key);
          if (free && win.freeKeys >= maxKeys) {
            folded++;
            return OTHER_VALUE;
          }
          if (free) win.freeKeys++;
          win.keys.set(key, (seen = new Set()));
        }
        const v = remembered(value);
        if (seen.has(v)) return value;
        if (seen.size >= max) {
          folded++;
          return OTHER_VALUE;
        }
        seen.add(v);
        return value;
      },
      get folded() {
        return folded;
      },
    };
  }
}
