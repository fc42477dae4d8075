import type { Feature, Row } from "./catalog.js";

/** `/statistics` column entries (hub.md 1.2), computed from the fixture rows. */
export interface ColumnStatistics {
  column_name: string;
  column_type: string;
  column_statistics: Record<string, unknown>;
}

const round = (value: number) => Math.round(value * 100000) / 100000;

function typeOf(feature: Feature): string | null {
  if (Array.isArray(feature)) return "list";
  const kind = (feature as { _type?: unknown })._type;
  if (kind === "ClassLabel") return "class_label";
  if (kind === "Image") return "image";
  if (kind === "Audio") return "audio";
  if (kind === "Sequence" || kind === "List" || kind === "LargeList") return "list";
  if (kind === "Value") {
    const dtype = String((feature as { dtype?: unknown }).dtype);
    if (dtype === "bool") return "bool";
    if (/^u?int\d+$/.test(dtype)) return "int";
    if (/^float\d+$/.test(dtype)) return "float";
    if (dtype === "string" || dtype === "large_string") return "string";
  }
  return null;
}

function numeric(values: number[], nanCount: number, total: number, integer: boolean): Record<string, unknown> {
  const base = { nan_count: nanCount, nan_proportion: total === 0 ? 0 : round(nanCount / total) };
  if (values.length === 0) return { ...base, min: null, max: null, mean: null, median: null, std: null, histogram: null };
  const sorted = [...values].sort((a, b) => a - b);
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const variance = values.length > 1 ? values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1) : 0;
  const bins = min === max ? 1 : integer ? Math.min(10, max - min + 1) : 10;
  const width = (max - min) / bins;
  const edges = Array.from({ length: bins }, (_, i) => (integer ? Math.round(min + i * width) : round(min + i * width)));
  edges.push(max);
  const hist = new Array<number>(bins).fill(0);
  for (const value of values) {
    const index = width === 0 ? 0 : Math.min(bins - 1, Math.floor((value - min) / width));
    hist[index]! += 1;
  }
  return {
    ...base,
    min,
    max,
    mean: round(mean),
    median: round(median),
    std: round(Math.sqrt(variance)),
    histogram: { hist, bin_edges: edges },
  };
}

function frequencies(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export function computeStatistics(features: Record<string, Feature>, rows: Row[]): ColumnStatistics[] {
  const out: ColumnStatistics[] = [];
  const total = rows.length;
  for (const [name, feature] of Object.entries(features)) {
    const kind = typeOf(feature);
    if (!kind || kind === "audio") continue;
    const cells = rows.map((row) => row[name]);
    const present = cells.filter((cell) => cell !== null && cell !== undefined);
    const nanCount = total - present.length;
    const nan = { nan_count: nanCount, nan_proportion: total === 0 ? 0 : round(nanCount / total) };
    if (kind === "class_label") {
      const names = (feature as { names?: string[] }).names ?? [];
      const labelled = present.filter((cell) => typeof cell === "number" && cell >= 0 && cell < names.length) as number[];
      const noLabel = present.length - labelled.length;
      const freq = frequencies(labelled.map((index) => names[index]!));
      out.push({
        column_name: name,
        column_type: kind,
        column_statistics: {
          ...nan,
          no_label_count: noLabel,
          no_label_proportion: total === 0 ? 0 : round(noLabel / total),
          n_unique: Object.keys(freq).length,
          frequencies: freq,
        },
      });
    } else if (kind === "int" || kind === "float") {
      out.push({ column_name: name, column_type: kind, column_statistics: numeric(present.map(Number), nanCount, total, kind === "int") });
    } else if (kind === "bool") {
      const freq = frequencies(present.map((cell) => (cell ? "True" : "False")));
      out.push({ column_name: name, column_type: kind, column_statistics: { ...nan, frequencies: freq } });
    } else if (kind === "string") {
      const strings = present.map(String);
      const unique = new Set(strings).size;
      const isLabel = (total > 0 && unique / total <= 0.2 && unique < 1000) || unique <= 10;
      if (isLabel) {
        out.push({
          column_name: name,
          column_type: "string_label",
          column_statistics: { ...nan, n_unique: unique, frequencies: frequencies(strings) },
        });
      } else {
        out.push({
          column_name: name,
          column_type: "string_text",
          column_statistics: numeric(
            strings.map((s) => s.length),
            nanCount,
            total,
            true,
          ),
        });
      }
    } else if (kind === "list") {
      out.push({
        column_name: name,
        column_type: kind,
        column_statistics: numeric(
          present.map((cell) => (Array.isArray(cell) ? cell.length : 0)),
          nanCount,
          total,
          true,
        ),
      });
    } else if (kind === "image") {
      const widths = present.map((cell) => Number((cell as { width?: unknown }).width ?? 0));
      out.push({ column_name: name, column_type: kind, column_statistics: numeric(widths, nanCount, total, true) });
    }
  }
  return out;
}
