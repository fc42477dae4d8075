/** Spec 2.2: typed digits accumulate for multi-digit indexes; waits 300 ms unless the prefix is unambiguous. */
export const DIGIT_WAIT_MS = 300;

export class DigitBuffer {
  private typed = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Adds a digit. `count` is the number of choices (1-based indexes 1..count). Calls `pick` with
   * the 1-based index at once when only one index starts with the typed prefix, else after 300 ms.
   */
  push(digit: string, count: number, pick: (index: number) => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.typed += digit;
    const candidates = Array.from({ length: count }, (_, i) => String(i + 1)).filter((s) => s.startsWith(this.typed));
    const flush = () => {
      const n = Number(this.typed);
      this.typed = "";
      this.timer = null;
      if (n >= 1 && n <= count) pick(n);
    };
    if (candidates.length <= 1) flush();
    else this.timer = setTimeout(flush, DIGIT_WAIT_MS);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.typed = "";
  }
}
