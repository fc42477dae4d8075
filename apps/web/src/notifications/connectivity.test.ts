import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ToastStore } from "./toast-store";
import { watchConnectivity } from "./connectivity";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("connectivity toasts", () => {
  it("shows a permanent danger toast offline and replaces it with 'online again'", () => {
    const target = new EventTarget() as unknown as Window;
    const store = new ToastStore();
    const stop = watchConnectivity(
      target,
      store,
      (k) => ({ "connectivity.offline": "You are offline", "connectivity.online": "You are online again" })[k] ?? k,
    );
    target.dispatchEvent(new Event("offline"));
    vi.advanceTimersByTime(60_000);
    expect(store.toasts.map((t) => [t.message, t.type, t.permanent])).toEqual([["You are offline", "danger", true]]);
    target.dispatchEvent(new Event("online"));
    vi.advanceTimersByTime(100);
    expect(store.toasts.map((t) => [t.message, t.type])).toEqual([["You are online again", "success"]]);
    stop();
    target.dispatchEvent(new Event("offline"));
    vi.advanceTimersByTime(100);
    expect(store.toasts.map((t) => t.message)).toEqual(["You are online again"]);
  });
});
