/** Latency summaries: nearest-rank percentiles over the sorted samples (milliseconds). */
export interface Summary {
  count: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
  throughput: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[], errors: number, wallMs: number): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((s, v) => s + v, 0);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    count: sorted.length,
    errors,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(sorted.length ? total / sorted.length : Number.NaN),
    throughput: wallMs > 0 ? Math.round((sorted.length / wallMs) * 1000 * 10) / 10 : 0,
  };
}
