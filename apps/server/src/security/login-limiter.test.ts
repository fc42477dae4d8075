import { describe, expect, it } from "vitest";
import { LoginLimiter, type LoginLimits } from "./login-limiter.js";

const LIMITS: LoginLimits = {
  freePerPair: 3,
  freePerUser: 12,
  freePerAddress: 8,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  userMaxDelayMs: 5000,
  forgetMs: 900_000,
};

function limiter() {
  let t = 1_000_000;
  const l = new LoginLimiter(LIMITS, () => t);
  const fail = (user: string, address: string) => {
    const r = l.begin(user, address);
    if (r.ok) l.failed(r.attempt);
    return r;
  };
  return {
    l,
    fail,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe("LoginLimiter", () => {
  it("doubles the wait per username and address after the free failures, up to the cap", () => {
    const { fail, advance } = limiter();
    for (let i = 0; i < 3; i++) expect(fail("ana", "a1").ok).toBe(true);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const blocked = fail("ana", "a1");
      expect(blocked.ok).toBe(false);
      const seconds = (blocked as { retryAfterSeconds: number }).retryAfterSeconds;
      waits.push(seconds);
      advance(seconds * 1000);
      expect(fail("ana", "a1").ok).toBe(true);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
  });

  it("does not slow the same username from another address, until many addresses failed; then only up to the short per-username cap", () => {
    const { l, fail, advance } = limiter();
    for (let i = 0; i < 12; i++) fail("owner", "attacker");
    expect(l.begin("owner", "home").ok).toBe(true);
    const { l: l2, fail: fail2 } = limiter();
    for (let a = 0; a < 40; a++) for (let i = 0; i < 3; i++) fail2("owner", `attacker-${a}`);
    const home = l2.begin("owner", "home");
    expect(home.ok).toBe(false);
    expect((home as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(5);
    advance(0);
  });

  it("slows an address trying many usernames", () => {
    const { l, fail } = limiter();
    for (let i = 0; i < 8; i++) expect(fail(`user-${i}`, "a1").ok).toBe(true);
    expect(l.begin("user-9", "a1").ok).toBe(false);
    expect(l.begin("user-9", "a2").ok).toBe(true);
  });

  it("counts an attempt while it runs (parallel guesses), takes a success back and clears its pair", () => {
    const { l, fail } = limiter();
    const started = Array.from({ length: 5 }, () => l.begin("ana", "a1"));
    expect(started.map((r) => r.ok)).toEqual([true, true, true, false, false]);
    l.succeeded((started[2] as { attempt: Parameters<LoginLimiter["succeeded"]>[0] }).attempt);
    expect(l.begin("ana", "a1").ok).toBe(true);
    expect(fail("ana", "a1").ok).toBe(true);
  });

  it("forgets failures a while after the last one", () => {
    const { l, fail, advance } = limiter();
    for (let i = 0; i < 6; i++) fail("ana", "a1");
    expect(l.begin("ana", "a1").ok).toBe(false);
    advance(900_001);
    expect(l.begin("ana", "a1").ok).toBe(true);
  });
});
