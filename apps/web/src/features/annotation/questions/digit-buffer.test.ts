import { afterEach, describe, expect, it, vi } from "vitest";
import { DigitBuffer } from "./digit-buffer";

afterEach(() => {
  vi.useRealTimers();
});

describe("DigitBuffer (number keys, spec 2.2)", () => {
  it("picks at once when only one option starts with the digit", () => {
    const pick = vi.fn();
    new DigitBuffer().push("3", 5, pick);
    expect(pick).toHaveBeenCalledWith(3);
  });
  it("waits 300 ms for a second digit when the prefix is ambiguous, then picks 10 or 1", () => {
    vi.useFakeTimers();
    const pick = vi.fn();
    const buffer = new DigitBuffer();
    buffer.push("1", 12, pick);
    expect(pick).not.toHaveBeenCalled();
    buffer.push("0", 12, pick);
    expect(pick).toHaveBeenCalledWith(10);
    buffer.push("1", 12, pick);
    vi.advanceTimersByTime(299);
    expect(pick).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(pick).toHaveBeenLastCalledWith(1);
  });
  it("ignores 0 and out-of-range numbers", () => {
    const pick = vi.fn();
    const buffer = new DigitBuffer();
    buffer.push("0", 5, pick);
    buffer.push("9", 5, pick);
    expect(pick).not.toHaveBeenCalled();
  });
});
