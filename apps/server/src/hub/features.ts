/**
 * Cell conversion by Hub feature type (hub.md 1.3, contract 6 step 3), applied to `/rows` cells:
 * ClassLabel index -> label name (-1 or out of range -> null); Image `{src, ...}` -> its `src`;
 * lists (List, Sequence, LargeList, legacy one-item arrays) and dicts are converted element-wise;
 * everything else passes through.
 */
export type HubFeature = unknown;

const kind = (feature: HubFeature): string | null =>
  feature && typeof feature === "object" && !Array.isArray(feature) && typeof (feature as { _type?: unknown })._type === "string"
    ? (feature as { _type: string })._type
    : null;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function convertCell(feature: HubFeature, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(feature)) return convertList(feature[0], value);
  switch (kind(feature)) {
    case "ClassLabel": {
      const names = (feature as { names?: unknown }).names;
      if (typeof value === "number" && Number.isInteger(value) && Array.isArray(names)) {
        return value >= 0 && value < names.length ? String(names[value]) : null;
      }
      return value;
    }
    case "Image":
      return isRecord(value) && typeof value.src === "string" ? value.src : value;
    case "Sequence":
    case "List":
    case "LargeList":
      return convertList((feature as { feature?: unknown }).feature, value);
    case null:
      if (isRecord(feature) && isRecord(value)) {
        return Object.fromEntries(
          Object.entries(value).map(([key, cell]) => [key, key in feature ? convertCell(feature[key], cell) : cell]),
        );
      }
      return value;
    default:
      return value;
  }
}

function convertList(item: HubFeature, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((cell) => convertCell(item, cell));
  // A Sequence of a dict may come back as a dict of lists.
  if (isRecord(value) && isRecord(item) && kind(item) === null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, cells]) => [key, Array.isArray(cells) ? cells.map((c) => convertCell(item[key], c)) : cells]),
    );
  }
  return value;
}
