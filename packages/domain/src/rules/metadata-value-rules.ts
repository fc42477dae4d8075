/**
 * Which metadata values fit a metadata property (contract 3.7, spec section 3), once for the whole
 * product: the server refuses a record whose metadata breaks them (and words the violation as the
 * contract does). Pure: a violation is data; wording belongs to whoever shows it.
 */

/** What the rules need to know of a metadata property's settings. */
export type MetadataRuleSettings =
  { type: "terms"; values?: readonly unknown[] | null } | { type: "integer" | "float"; min?: number | null; max?: number | null };

export type MetadataValueViolation =
  | { kind: "metadata.notANumber"; value: number }
  | { kind: "terms.notATerm"; term: unknown }
  | { kind: "terms.notAllowed"; term: unknown }
  | { kind: "number.wrongType"; value: unknown; expected: "integer" | "float" }
  | { kind: "number.outOfRange"; value: number; min: number | null; max: number | null };

/**
 * The first rule a (non-null) metadata value breaks, or null. NaN and infinities are never valid; a
 * terms value is a term or a list of terms (string, number or boolean) from `values` when it is set;
 * an integer or float value is a number (an integer for integer) within `[min, max]` where set.
 */
export function metadataValueViolation(settings: MetadataRuleSettings, value: unknown): MetadataValueViolation | null {
  if (typeof value === "number" && !Number.isFinite(value)) return { kind: "metadata.notANumber", value };
  if (settings.type === "terms") {
    const terms = Array.isArray(value) ? value : [value];
    for (const term of terms) {
      if (typeof term !== "string" && typeof term !== "number" && typeof term !== "boolean") return { kind: "terms.notATerm", term };
      if (settings.values && !settings.values.some((v) => v === term)) return { kind: "terms.notAllowed", term };
    }
    return null;
  }
  if (typeof value !== "number" || (settings.type === "integer" && !Number.isInteger(value))) {
    return { kind: "number.wrongType", value, expected: settings.type };
  }
  const min = settings.min ?? null;
  const max = settings.max ?? null;
  if ((min !== null && value < min) || (max !== null && value > max)) return { kind: "number.outOfRange", value, min, max };
  return null;
}
