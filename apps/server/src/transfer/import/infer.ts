import type { FileRow, UploadFormat } from "./readers.js";

/**
 * Column typing of an uploaded file, in the Hub's `features` shape so that the Hub import's typing
 * rules (spec section 5, `classifyColumn` in @tessera/domain) apply unchanged: text → text field, image
 * URLs → image field, lists of {role, content} → chat field, lists of labels → multi-label question,
 * numbers → integer or float metadata. `hint` marks the columns of a Tessera export (responses,
 * suggestion parts, vectors, record columns) so the page can map them back.
 */
export type ColumnHint =
  | "record"
  | "external_id"
  | "metadata"
  | "vector"
  | "responses"
  | "responses_part"
  | "suggestion"
  | "suggestion_part"
  /** A reviewer's final answer (`<q>.final`, `final_answer.*`): not restored by an upload, ignored unless mapped by hand. */
  | "final"
  | null;
export interface ColumnPreview {
  name: string;
  feature: Record<string, unknown>;
  hint: ColumnHint;
}

const IMAGE_URL = /^(https?:\/\/\S+\.(png|jpe?g|gif|webp|svg|bmp)(\?\S*)?|data:image\/[a-z+]+;base64,)/i;
const INTEGER = /^-?\d+$/;
const FLOAT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A CSV or TSV cell as a value: empty → null; JSON lists and objects parsed; the rest stays text. */
export function cellValue(format: UploadFormat, value: unknown): unknown {
  if (format !== "csv" && format !== "tsv") return value === undefined ? null : value;
  if (typeof value !== "string" || value === "") return null;
  const t = value.trim();
  if ((t.startsWith("[") && t.endsWith("]")) || (t.startsWith("{") && t.endsWith("}"))) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

function hintOf(name: string): ColumnHint {
  if (name === "external_id") return "external_id";
  if (["id", "status", "inserted_at", "updated_at"].includes(name)) return "record";
  if (name.startsWith("metadata.")) return "metadata";
  if (name.startsWith("vector.")) return "vector";
  if (name.endsWith(".responses")) return "responses";
  if (name.endsWith(".responses.users") || name.endsWith(".responses.status")) return "responses_part";
  if (name.endsWith(".suggestion")) return "suggestion";
  if (name.endsWith(".suggestion.score") || name.endsWith(".suggestion.agent")) return "suggestion_part";
  if (name.endsWith(".final") || name.startsWith("final_answer.")) return "final";
  return null;
}

function featureOf(format: UploadFormat, values: unknown[]): Record<string, unknown> {
  const present = values.filter((v) => v !== null && v !== undefined && v !== "");
  if (present.length === 0) return { _type: "Value", dtype: "null" };
  const delimited = format === "csv" || format === "tsv";
  const numbers = present.map((v) =>
    typeof v === "number" ? v : delimited && typeof v === "string" && FLOAT.test(v.trim()) ? Number(v) : null,
  );
  if (numbers.every((n) => n !== null)) {
    const integral = present.every((v) => (typeof v === "number" ? Number.isInteger(v) : INTEGER.test(String(v).trim())));
    return { _type: "Value", dtype: integral ? "int64" : "float64" };
  }
  const parsed = present.map((v) => cellValue(format, v));
  if (parsed.every((v) => typeof v === "string")) {
    return (parsed as string[]).every((s) => IMAGE_URL.test(s.trim())) ? { _type: "Image" } : { _type: "Value", dtype: "string" };
  }
  if (parsed.every((v) => typeof v === "boolean")) return { _type: "Value", dtype: "bool" };
  if (parsed.every((v) => Array.isArray(v))) {
    const items = (parsed as unknown[][]).flat();
    if (items.length > 0 && items.every((i) => typeof i === "object" && i !== null && "role" in i && "content" in i)) {
      return { _type: "Sequence", feature: { role: { _type: "Value", dtype: "string" }, content: { _type: "Value", dtype: "string" } } };
    }
    if (items.length > 0 && items.every((i) => typeof i === "number"))
      return { _type: "Sequence", feature: { _type: "Value", dtype: "float64" } };
    if (items.every((i) => typeof i === "string")) {
      const names = [...new Set(items as string[])].sort();
      if (names.length > 0 && names.length <= 50) return { _type: "Sequence", feature: { _type: "ClassLabel", names } };
      return { _type: "Sequence", feature: { _type: "Value", dtype: "string" } };
    }
  }
  return { _type: "json" };
}

/** The columns of the sampled rows (in first-seen order) with their inferred features. */
export function inferColumns(format: UploadFormat, rows: FileRow[]): ColumnPreview[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const r of rows)
    for (const k of Object.keys(r.values))
      if (!seen.has(k)) {
        seen.add(k);
        names.push(k);
      }
  return names.map((name) => {
    const hint = hintOf(name);
    const raw = featureOf(
      format,
      rows.map((r) => r.values[name]),
    );
    // the answers of a Tessera export are not label lists to turn into questions
    const feature = hint === "responses" || hint === "responses_part" || hint === "suggestion_part" ? { _type: "json" } : raw;
    return { name, feature, hint };
  });
}
