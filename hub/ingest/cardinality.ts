/**
 * Distinct values per attribute key per account per window (reliability-anchors.md #56, the
 * CVE-2023-45142 class): once a key has taken `maxDistinct` different values in the current
 * window, further new values fold into OTHER_VALUE. Memory is bounded by accounts x keys x
 * maxDistinct; the least recently active account is forgotten first.
 */

export const OTHER_VALUE = '__other__';

interface AccountWindow {
  startedAt: number;
  keys: Map<string, Set<string>>;
}

/** The per-request view of one account's window (looked up once per batch). */
export interface CardinalityScope {
  /** `value`, or OTHER_VALUE when `key` is already at its distinct-value limit */
  admit(key: string, value: string): string;
  /** values folded into OTHER_VALUE through this scope */
  readonly folded: number;
}

export class CardinalityGuard {
  private readonly accounts = new Map<string, AccountWindow>();

  constructor(
    private readonly maxDistinct: number,
    private readonly windowMs: number,
    private readonly maxAccounts: number,
    private readonly now: () => number = Date.now,
  ) {}

  scope(accountId: string): CardinalityScope {
    const t = this.now();
    let w = this.accounts.get(accountId);
    if (w) this.accounts.delete(accountId); // re-inserted below: Map order is the LRU order
    if (!w || t - w.startedAt >= this.windowMs) w = { startedAt: t, keys: new Map() };
    this.accounts.set(accountId, w);
    while (this.accounts.size > this.maxAccounts) this.accounts.delete(this.accounts.keys().next().value as string);
    const keys = w.keys;
    const max = this.maxDistinct;
    let folded = 0;
    return {
      admit(key, value) {
        let seen = keys.get(key);
        if (!seen) keys.set(key, (seen = new Set()));
        if (seen.has(value)) return value;
        if (seen.size >= max) {
          folded++;
          return OTHER_VALUE;
        }
        seen.add(value);
        return value;
      },
      get folded() {
        return folded;
      },
    };
  }
}
