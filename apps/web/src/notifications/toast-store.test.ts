import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toastDuration } from "@tessera/domain";
import { ToastStore } from "./toast-store";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("toast timings (spec sections 2 and 9)", () => {
  it("lasts 6000 ms plus 1000 ms per started 120 characters", () => {
    expect(toastDuration("")).toBe(6000);
    expect(toastDuration("x")).toBe(7000);
    expect(toastDuration("x".repeat(120))).toBe(7000);
    expect(toastDuration("x".repeat(121))).toBe(8000);
  });

  it("opens after 100 ms with success as the default type and top-right as the default position", () => {
    const store = new ToastStore();
    store.notify({ message: "Saved" });
    vi.advanceTimersByTime(99);
    expect(store.toasts).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(store.toasts.map((t) => [t.message, t.type, t.position])).toEqual([["Saved", "success", "top-right"]]);
  });

  it("auto-closes after its duration, hides, then removes it 150 ms later", () => {
    const onClose = vi.fn();
    const store = new ToastStore();
    store.notify({ message: "a", type: "danger", onClose });
    vi.advanceTimersByTime(100 + 6999);
    expect(store.toasts[0]?.visible).toBe(true);
    vi.advanceTimersByTime(1);
    expect(store.toasts[0]?.visible).toBe(false);
    expect(onClose).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(149);
    expect(store.toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.toasts).toHaveLength(0);
  });

  it("queues a second toast while one shows, re-checking every 250 ms", () => {
    const store = new ToastStore();
    store.notify({ message: "first" });
    vi.advanceTimersByTime(100);
    store.notify({ message: "second" });
    vi.advanceTimersByTime(100);
    expect(store.toasts.map((t) => t.message)).toEqual(["first"]);
    store.close(store.toasts[0]!);
    vi.advanceTimersByTime(150); // first is removed now; the next re-check is at 100 + 250 = 350
    expect(store.toasts).toHaveLength(0);
    vi.advanceTimersByTime(99);
    expect(store.toasts).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(store.toasts.map((t) => t.message)).toEqual(["second"]);
  });

  it("pauses on hover and resumes with the remaining time on leave", () => {
    const store = new ToastStore();
    store.notify({ message: "hover me" });
    vi.advanceTimersByTime(100 + 3000);
    const toast = store.toasts[0]!;
    store.pause(toast);
    vi.advanceTimersByTime(60_000);
    expect(toast.visible).toBe(true);
    store.resume(toast);
    vi.advanceTimersByTime(3999);
    expect(toast.visible).toBe(true);
    vi.advanceTimersByTime(1);
    expect(toast.visible).toBe(false);
  });

  it("keeps a permanent toast until it is closed", () => {
    const store = new ToastStore();
    store.notify({ message: "stay", permanent: true, type: "warning", position: "bottom" });
    vi.advanceTimersByTime(10 * 60_000);
    expect(store.toasts.map((t) => [t.visible, t.position])).toEqual([[true, "bottom"]]);
  });

  it("clear() removes visible and queued toasts", () => {
    const store = new ToastStore();
    store.notify({ message: "one" });
    vi.advanceTimersByTime(100);
    store.notify({ message: "two" });
    store.clear();
    vi.advanceTimersByTime(10_000);
    expect(store.toasts).toHaveLength(0);
  });

  it("runs the action button's callback and closes", () => {
    const onClick = vi.fn();
    const store = new ToastStore();
    store.notify({ message: "unsaved", buttonText: "Ignore and continue", onClick, permanent: true });
    vi.advanceTimersByTime(100);
    store.clickAction(store.toasts[0]!);
    expect(onClick).toHaveBeenCalledOnce();
    expect(store.toasts[0]?.visible).toBe(false);
  });
});
