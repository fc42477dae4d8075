/**
 * Sliding-window counters of sign-in attempts per username and per client address. An attempt
 * counts from the moment it starts (so a burst of parallel guesses is limited too) and is taken back
 * when it succeeds, so people who type their password right are never slowed down.
 */
export class LoginLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly windowMs: number, private readonly maxPerUser: number, private readonly maxPerAddress: number, private readonly now: () => number = Date.now) {}

  /** Registers an attempt, or returns the seconds to wait when either key is over its limit. */
  begin(username: string, address: string): { ok: true; attempt: number } | { ok: false; retryAfterSeconds: number } {
    const t = this.now();
    const userKey = `u:${username.slice(0, 200)}`;
    const addressKey = `a:${address}`;
    const user = this.live(userKey, t);
    const addr = this.live(addressKey, t);
    if (user.length >= this.maxPerUser || addr.length >= this.maxPerAddress) {
      const oldest = Math.min(user.length >= this.maxPerUser ? user[0] ?? t : Infinity, addr.length >= this.maxPerAddress ? addr[0] ?? t : Infinity);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - t) / 1000)) };
    }
    user.push(t);
    addr.push(t);
    this.hits.set(userKey, user);
    this.hits.set(addressKey, addr);
    if (this.hits.size > 50_000) this.sweep(t);
    return { ok: true, attempt: t };
  }

  /** A successful sign-in: its attempt no longer counts. */
  succeeded(username: string, address: string, attempt: number): void {
    for (const key of [`u:${username.slice(0, 200)}`, `a:${address}`]) {
      const list = this.hits.get(key);
      const i = list?.indexOf(attempt) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
    }
  }

  private live(key: string, t: number): number[] {
    const list = this.hits.get(key) ?? [];
    while (list.length > 0 && (list[0] ?? 0) <= t - this.windowMs) list.shift();
    return list;
  }

  private sweep(t: number): void {
    for (const key of this.hits.keys()) if (this.live(key, t).length === 0) this.hits.delete(key);
  }
}
