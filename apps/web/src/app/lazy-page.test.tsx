import { describe, expect, it, vi } from "vitest";
import { Suspense } from "react";
import { render, screen } from "@testing-library/react";
import {
  canPrefetch,
  configureChunkReload,
  isChunkLoadError,
  lazyPage,
  prefetchPath,
  registerPrefetch,
  reloadAfterChunkError,
} from "./lazy-page";

describe("chunk reload (spec section 8)", () => {
  it("reloads at most once a minute", () => {
    let stored: number | undefined;
    let now = 1_000_000;
    const reload = vi.fn();
    const deps = {
      get: () => stored,
      set: (v: number) => {
        stored = v;
      },
      now: () => now,
      reload,
    };
    expect(reloadAfterChunkError(deps)).toBe(true);
    now += 59_999;
    expect(reloadAfterChunkError(deps)).toBe(false);
    now += 1;
    expect(reloadAfterChunkError(deps)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it("recognises chunk load errors", () => {
    expect(isChunkLoadError(new TypeError("Failed to fetch dynamically imported module: /assets/x.js"))).toBe(true);
    expect(isChunkLoadError(new Error("boom"))).toBe(false);
  });

  it("a lazy page whose chunk fails reloads the page instead of erroring", async () => {
    const reload = vi.fn();
    configureChunkReload({ get: () => undefined, set: () => {}, now: () => 0, reload });
    const Page = lazyPage(async () => {
      throw new TypeError("Failed to fetch dynamically imported module");
    });
    render(
      <Suspense fallback={<p>loading</p>}>
        <Page />
      </Suspense>,
    );
    await vi.waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(screen.getByText("loading")).toBeTruthy();
  });
});

describe("prefetch (spec section 1)", () => {
  it("is off when offline, on 2g or with data saver", () => {
    expect(canPrefetch({ onLine: true })).toBe(true);
    expect(canPrefetch({ onLine: true, connection: { effectiveType: "4g" } })).toBe(true);
    expect(canPrefetch({ onLine: false })).toBe(false);
    expect(canPrefetch({ onLine: true, connection: { effectiveType: "slow-2g" } })).toBe(false);
    expect(canPrefetch({ onLine: true, connection: { effectiveType: "2g" } })).toBe(false);
    expect(canPrefetch({ onLine: true, connection: { saveData: true } })).toBe(false);
  });

  it("preloads the chunk of the route a path matches, once", async () => {
    const load = vi.fn(async () => () => <p>settings</p>);
    const Page = lazyPage(load);
    registerPrefetch("/dataset/:id/settings", Page.preload);
    expect(prefetchPath("/dataset/42/settings?x=1")).toBe(true);
    expect(prefetchPath("/dataset/42/settings")).toBe(true);
    expect(prefetchPath("/nowhere/at/all")).toBe(false);
    expect(load).toHaveBeenCalledOnce();
  });
});
