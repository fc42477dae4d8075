// The field of a text query as the embedded store's FTS rows are tested: no imports, so that the read threads'
// modules (sqlite-text-answered.ts) and sqlite-text-field.ts (which uses the read pool) share it without a cycle.

/**
 * A text query's field as the FTS rows are tested: null (any field), the field's name (the UNINDEXED `field` column,
 * fetched for each row that matches in any field: ~1.6 us a row, 620 ms for a word in 19% of 1M summaries), or the
 * field's position in every record of the range (the rowid's low bits, `seq * 1024 + position`: text-index.ts
 * rowsOf; 55 -> 4 ms for a rare word at 1M).
 */
export type FtsField = string | number | null;

/** The SQL test of an FTS row's field (one `?`, bound to `fieldParam`), on the rowid column `rowid`. */
export function ftsFieldSql(field: string | number, rowid = "rowid"): string {
  return typeof field === "number" ? `(${rowid} & 1023) = ?` : "field = ?";
}

/** A field in a cache key: a position (`#n`) is not a field's name. */
export function ftsFieldKey(field: FtsField): string {
  return typeof field === "number" ? `#${field}` : (field ?? "");
}
