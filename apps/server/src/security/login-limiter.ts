/**
 * Sign-in throttling with growing delays (issue 28, finding 4), on three counters of failed attempts:
 *
 * - per username AND client address: `freePerPair` failures are free, then each one doubles the wait
 *   before the next attempt from that address for that username (1 s, 2 s, 4 s, ... up to `maxDelayMs`);
 * - per username, over all addresses: `freePerUser` failures are free, then the same doubling but capped
 *   at `userMaxDelayMs` (a few seconds): guessing one account from many addresses is slowed, while the
 *   account's owner, from their own address, gets in after that short wait whatever others typed;
 * - per client address, over all usernames: `freePerAddress`, then doubling up to `maxDelayMs`.
 *
 * An attempt is counted as a failure when it starts (so a burst of parallel guesses meets the delays
 * too) and taken back when it succeeds; a success also clears its username-and-address counter. The
 * wait runs from when the failure was answered (a slow password check does not shorten it). A
 * counter is forgotten `forgetMs` after its last failure. API keys and tokens never pass here.
 */
export interface LoginLimits {
  freePerPair: number;
  freePerUser: number;
  freePerAddress: number;
  baseDelayMs: number;
  maxDelayMs: number;
  userMaxDelayMs: number;
  forgetMs: number;
}

interface Counter {
  failures: number;
  lastAt: number;
}
type Key = "pair" | "user" | "address";
export interface LoginAttempt {
  keys: Record<Key, string>;
  previous: Record<Key, Counter | undefined>;
}

export class LoginLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly limits: LoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts an attempt, or returns the seconds to wait when one of its counters is in a delay. */
  begin(username: string, address: string): { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterSeconds: number } {
    const t = this.now();
    const name = username.slice(0, 200);
    const keys: Record<Key, string> = { pair: `p:${address}\u0000${name}`, user: `u:${name}`, address: `a:${address}` };
    let waitMs = 0;
    for (const key of ["pair", "user", "address"] as const) {
      const counter = this.live(keys[key], t);
      if (counter) waitMs = Math.max(waitMs, counter.lastAt + this.delay(key, counter.failures) - t);
    }
    if (waitMs > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    const previous = {} as Record<Key, Counter | undefined>;
    for (const key of ["pair", "user", "address"] as const) {
      const counter = this.live(keys[key], t);
      previous[key] = counter ? { ...counter } : undefined;
      this.counters.set(keys[key], { failures: (counter?.failures ?? 0) + 1, lastAt: t });
    }
    if (this.counters.size > 50_000) this.sweep(t);
    return { ok: true, attempt: { keys, previous } };
  }

  /** The attempt signed in: it was not a failure, and its username-and-address counter starts again. */
  succeeded(attempt: LoginAttempt): void {
    this.counters.delete(attempt.keys.pair);
    for (const key of ["user", "address"] as const) {
      const current = this.counters.get(attempt.keys[key]);
      if (!current) continue;
      const previous = attempt.previous[key];
      if (current.failures <= 1) this.counters.delete(attempt.keys[key]);
      else
        this.counters.set(attempt.keys[key], {
          failures: current.failures - 1,
          lastAt: previous && current.failures - 1 <= previous.failures ? previous.lastAt : current.lastAt,
        });
    }
  }

  /** The attempt failed: its wait starts now, when the failure is answered. */
  failed(attempt: LoginAttempt): void {
    const t = this.now();
    for (const key of ["pair", "user", "address"] as const) {
      const counter = this.counters.get(attempt.keys[key]);
      if (counter) counter.lastAt = Math.max(counter.lastAt, t);
    }
  }

  /** The wait after `failures` failures on a counter of this kind. */
  private delay(key: Key, failures: number): number {
    const free = key === "pair" ? this.limits.freePerPair : key === "user" ? this.limits.freePerUser : this.limits.freePerAddress;
    if (failures < free) return 0;
    const cap = key === "user" ? this.limits.userMaxDelayMs : this.limits.maxDelayMs;
    return Math.min(cap, this.limits.baseDelayMs * 2 ** Math.min(30, failures - free));
  }

  private live(key: string, t: number): Counter | undefined {
    const counter = this.counters.get(key);
    if (counter && t - counter.lastAt > this.limits.forgetMs) {
      this.counters.delete(key);
      return undefined;
    }
    return counter;
  }

  private sweep(t: number): void {
    for (const key of [...this.counters.keys()]) this.live(key, t);
  }
}
