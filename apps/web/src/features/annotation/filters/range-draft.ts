import { action, computed, makeObservable, observable } from "mobx";

export interface RangeBounds {
  ge: number | null;
  le: number | null;
}

/** A slider step for a float range: a power of ten near a hundredth of the span (integers step by 1). */
export function rangeStep(min: number, max: number, integer: boolean): number {
  if (integer) return 1;
  const span = max - min;
  if (!(span > 0)) return 0.01;
  return 10 ** Math.floor(Math.log10(span / 100));
}

const decimalsOf = (step: number) => Math.max(0, -Math.floor(Math.log10(step)));

/**
 * The range a user is choosing with a two-thumb slider and two number inputs, between the property's (or score's)
 * min and max: typed numbers are clamped into [min, max] and the two bounds kept in order; slider values are rounded
 * to the step (no 0.30000000000000004). `bounds` is what the filter gets.
 */
export class RangeDraft {
  low: number;
  high: number;
  lowText: string;
  highText: string;
  readonly step: number;
  private readonly decimals: number;

  constructor(
    readonly min: number,
    readonly max: number,
    integer: boolean,
    current: Partial<RangeBounds> | null,
  ) {
    this.step = rangeStep(min, max, integer);
    this.decimals = decimalsOf(this.step);
    this.low = this.clamp(current?.ge ?? min);
    this.high = this.clamp(current?.le ?? max);
    if (this.low > this.high) [this.low, this.high] = [this.high, this.low];
    this.lowText = String(this.low);
    this.highText = String(this.high);
    makeObservable(this, {
      low: observable,
      high: observable,
      lowText: observable,
      highText: observable,
      values: computed,
      bounds: computed,
      setValues: action,
      setText: action,
      commitText: action,
    });
  }

  /** Whether a slider can show (a real span between min and max). */
  get hasSpan(): boolean {
    return this.max > this.min;
  }
  get values(): [number, number] {
    return [this.low, this.high];
  }
  get bounds(): RangeBounds {
    return { ge: this.low, le: this.high };
  }

  private round(n: number): number {
    return Number(n.toFixed(this.decimals));
  }
  private clamp(n: number): number {
    return this.round(Math.min(this.max, Math.max(this.min, n)));
  }

  /** The slider moved. */
  setValues([a, b]: number[]): void {
    const low = this.clamp(Math.min(a ?? this.low, b ?? this.high));
    const high = this.clamp(Math.max(a ?? this.low, b ?? this.high));
    this.low = low;
    this.high = high;
    this.lowText = String(low);
    this.highText = String(high);
  }

  setText(which: "low" | "high", text: string): void {
    if (which === "low") this.lowText = text;
    else this.highText = text;
  }

  /**
   * A typed bound is done (blur or Enter): clamped into [min, max]; a bound past the other one moves both to it;
   * empty or not a number falls back to the extreme. Returns whether the range changed.
   */
  commitText(which: "low" | "high"): boolean {
    const before = `${this.low}:${this.high}`;
    const text = (which === "low" ? this.lowText : this.highText).trim();
    const n = text === "" ? Number.NaN : Number(text);
    if (which === "low") {
      this.low = Number.isFinite(n) ? this.clamp(n) : this.min;
      if (this.low > this.high) this.high = this.low;
    } else {
      this.high = Number.isFinite(n) ? this.clamp(n) : this.max;
      if (this.high < this.low) this.low = this.high;
    }
    this.lowText = String(this.low);
    this.highText = String(this.high);
    return before !== `${this.low}:${this.high}`;
  }
}
