import { describe, expect, it } from "vitest";
import { FiguresCache } from "./agreement-cache.js";

describe("FiguresCache", () => {
  it("computes once per key and keeps at most its weight, least recently used out first", async () => {
    const cache = new FiguresCache(10);
    let computed = 0;
    const compute = (value: string) => async () => {
      computed += 1;
      return value;
    };
    expect(await cache.through("a", compute("A"), () => 4)).toBe("A");
    expect(await cache.through("a", compute("other"), () => 4)).toBe("A");
    expect(computed).toBe(1);
    await cache.through("b", compute("B"), () => 4);
    cache.get("a"); // a is now the most recently used
    await cache.through("c", compute("C"), () => 4); // 12 > 10: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe("A");
    expect(cache.get("c")).toBe("C");
    cache.set("huge", "H", 11); // heavier than the whole cache: not kept, nothing else evicted
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("a")).toBe("A");
  });
});
