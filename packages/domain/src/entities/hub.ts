import { DEFAULT_OPTIONS } from "../constants.js";
import { MESSAGES, type Message } from "../messages.js";
import type { AnswerValue } from "./answer.js";
import type { FieldType } from "./field.js";
import type { MetadataType } from "./metadata.js";
import type { QuestionOption, QuestionSettings } from "./question.js";
import { validateQuestionOptions } from "./question.js";
import type { QuestionType } from "./question-type.js";

/** Hub import mapping: fields, metadata and suggestions as source/target lists, plus an optional external_id column. */
export interface MappingItem {
  source: string;
  target: string;
}
export interface HubMapping {
  fields: MappingItem[];
  metadata: MappingItem[];
  suggestions: MappingItem[];
  external_id?: string | null;
}

/** A Hub `features` entry (datasets-server /info): `{_type, ...}`, a legacy one-item array, or a plain dict. */
export type HubFeature = { [key: string]: unknown } | unknown[];

export type ColumnTyping =
  | { kind: "field"; type: Exclude<FieldType, "custom"> }
  | { kind: "question"; type: "label_selection" | "multi_label_selection"; options: string[] }
  | { kind: "metadata"; type: MetadataType }
  | { kind: "unmapped" };

const INTEGER_DTYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int32", "int64"];
const FLOAT_DTYPES = ["float16", "float32", "float64"];

const obj = (f: unknown): { [key: string]: unknown } | null =>
  f && typeof f === "object" && !Array.isArray(f) ? (f as { [key: string]: unknown }) : null;
const isClassLabel = (f: unknown) => obj(f)?.["_type"] === "ClassLabel";
const isMessageDict = (f: unknown) => {
  const o = obj(f);
  return !!o && !("_type" in o) && "role" in o && "content" in o;
};

/** The item feature of a sequence: legacy one-item array, Sequence, List or LargeList. */
function sequenceItem(feature: unknown): unknown {
  if (Array.isArray(feature)) return feature[0];
  const o = obj(feature);
  if (o && ["Sequence", "List", "LargeList"].includes(String(o["_type"]))) return o["feature"];
  return undefined;
}

/**
 * Hub column typing (spec section 5): string value → text field; image → image field; a sequence
 * of items with role and content → chat field; class label → single-label question; sequence of
 * class labels → multi-label question; numeric types or terms → metadata; anything else unmapped.
 */
export function classifyColumn(feature: HubFeature): ColumnTyping {
  const o = obj(feature);
  const type = o?.["_type"];
  if (type === "Value" && (o?.["dtype"] === "string" || o?.["dtype"] === "large_string")) return { kind: "field", type: "text" };
  if (type === "Image") return { kind: "field", type: "image" };
  if (type === "ClassLabel") return { kind: "question", type: "label_selection", options: namesOf(o) };
  const item = sequenceItem(feature);
  if (item !== undefined) {
    if (isMessageDict(item)) return { kind: "field", type: "chat" };
    if (isClassLabel(item)) return { kind: "question", type: "multi_label_selection", options: namesOf(obj(item)) };
    return { kind: "unmapped" };
  }
  if (type === "Value") {
    const dtype = String(o?.["dtype"]);
    if (INTEGER_DTYPES.includes(dtype)) return { kind: "metadata", type: "integer" };
    if (FLOAT_DTYPES.includes(dtype)) return { kind: "metadata", type: "float" };
  }
  if (type === "terms") return { kind: "metadata", type: "terms" };
  return { kind: "unmapped" };
}

function namesOf(o: { [key: string]: unknown } | null): string[] {
  const names = o?.["names"];
  return Array.isArray(names) ? names.map((n) => String(n).trim()) : [];
}

/** The server's rule for question and metadata property names (contract 3.6, 3.7): `^(?=.*[a-z0-9])[a-z0-9_-]+$`, at most 200. */
export const SERVER_NAME_PATTERN = /^(?=.*[a-z0-9])[a-z0-9_-]+$/;
const SERVER_NAME_MAX = 200;

/**
 * A name the server accepts, made from any text: lower case, runs of other characters become `_`,
 * leading and trailing `_` trimmed, at most 200 characters; `fallback` when nothing usable is left.
 */
export function serverName(raw: string, fallback: string): string {
  const name = raw
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, SERVER_NAME_MAX);
  return SERVER_NAME_PATTERN.test(name) ? name : fallback;
}

/** `name`, or `name_2`, `name_3` ... the first one not in `used`. */
export function uniqueServerName(name: string, used: ReadonlySet<string>): string {
  if (!used.has(name)) return name;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = `${name.slice(0, SERVER_NAME_MAX - suffix.length)}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

const isDict = (v: unknown): v is { [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A dataset viewer cell converted by its feature, as the server's import does (docs/hub.md): ClassLabel
 * index → name (-1 or out of range → null), Image → its `src`, lists (Sequence, List, LargeList, legacy
 * one-item arrays) and dicts element-wise; everything else passes through.
 */
export function convertHubCell(feature: HubFeature | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(feature)) return convertHubList(feature[0], value);
  const o = obj(feature);
  const type = o?.["_type"];
  if (type === "ClassLabel") {
    const names = o?.["names"];
    if (typeof value === "number" && Number.isInteger(value) && Array.isArray(names))
      return value >= 0 && value < names.length ? String(names[value]) : null;
    return value;
  }
  if (type === "Image") return isDict(value) && typeof value["src"] === "string" ? value["src"] : value;
  if (type === "Sequence" || type === "List" || type === "LargeList") return convertHubList(o?.["feature"], value);
  if (o && type === undefined && isDict(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k in o ? convertHubCell(o[k] as HubFeature, v) : v]));
  return value;
}

function convertHubList(item: unknown, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => convertHubCell(item as HubFeature, v));
  // A Sequence of a dict may come back as a dict of lists.
  const o = obj(item);
  if (o && !("_type" in o) && isDict(value))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? v.map((c) => convertHubCell(o[k] as HubFeature, c)) : v]),
    );
  return value;
}

const cellText = (v: unknown): string => (typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v));

/**
 * The suggestion the import stores for a question of `type` from a converted cell (contract 6): text and
 * label as text, rating as an integer, multi-label as a list of texts (a scalar wrapped); null when the
 * import would store none (null value, empty list, not a number). Ranking and span cells are not
 * suggested in the preview (null).
 */
export function hubSuggestionValue(type: QuestionType, value: unknown): AnswerValue | null {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "text":
    case "label_selection":
      return cellText(value);
    case "rating": {
      const n = Math.trunc(Number(value));
      return Number.isFinite(n) ? n : null;
    }
    case "multi_label_selection": {
      const items = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined).map(cellText);
      return items.length > 0 ? items : null;
    }
    default:
      return null;
  }
}

export interface FieldCreation {
  name: string;
  title: string;
  required: boolean;
  type: Exclude<FieldType, "custom"> | "no mapping";
  useMarkdown: boolean;
}
/** A metadata property to create: `name` follows the server's name rule, `column` is the Hub column it is read from. */
export interface MetadataCreation {
  name: string;
  column: string;
  title: string;
  type: MetadataType;
}

/** A question to create; `column` is the source column of its suggestions (null: not mapped). */
export class QuestionCreation {
  required = true;
  column: string | null;
  options: QuestionOption[];
  settings: Omit<QuestionSettings, "type" | "options">;
  constructor(
    public name: string,
    public type: QuestionType,
    options: Array<string | number> = [],
    column: string | null = null,
    public title = name,
  ) {
    this.column = column;
    this.options = options.map((o) => ({ value: o, text: String(o) }));
    this.settings = type === "span" ? { field: "text", allow_overlapping: true } : type === "text" ? { use_markdown: false } : {};
  }

  /** A question with the default example options of its type. */
  static withDefaults(name: string, type: QuestionType): QuestionCreation {
    const defaults: Array<string | number> =
      type === "rating" ? Array.from({ length: 11 }, (_, i) => i) : type === "text" ? [] : [...DEFAULT_OPTIONS[type]];
    return new QuestionCreation(name, type, defaults);
  }

  validate(): Message[] {
    return validateQuestionOptions(this.type, this.options);
  }
  get isValid(): boolean {
    return this.validate().length === 0;
  }

  toSettings(): QuestionSettings {
    const withOptions = this.type !== "text";
    return {
      type: this.type,
      ...this.settings,
      ...(withOptions ? { options: this.options.map((o) => ({ value: o.value, text: o.text ?? String(o.value) })) } : {}),
    };
  }
}

export interface HubSubsetInfo {
  name: string;
  splits: string[];
  features: { [column: string]: HubFeature };
}

/** One subset of a Hub dataset with its proposed fields, questions and metadata. */
export class HubSubset {
  split: string;
  readonly columns: string[];
  /** The Hub features by column (to convert cells the way the import does). */
  readonly features: { readonly [column: string]: HubFeature };
  fields: FieldCreation[] = [];
  questions: QuestionCreation[] = [];
  metadata: MetadataCreation[] = [];
  /** The column used as the records' external id (a column named id by default; null: none). */
  externalId: string | null;

  constructor(
    readonly name: string,
    readonly splits: string[],
    features: { [column: string]: HubFeature },
  ) {
    this.split = splits[0] ?? "train";
    this.columns = Object.keys(features);
    this.features = features;
    this.externalId = this.columns.includes("id") ? "id" : null;
    for (const [column, feature] of Object.entries(features)) {
      const t = classifyColumn(feature);
      if (t.kind === "field") this.fields.push({ name: column, title: column, required: false, type: t.type, useMarkdown: false });
      else if (t.kind === "question") this.questions.push(new QuestionCreation(column, t.type, t.options, column));
      else if (t.kind === "metadata") this.addMetadata(column, t.type);
      else this.fields.push({ name: column, title: column, required: false, type: "no mapping", useMarkdown: false });
    }
    if (this.questions.length === 0) this.questions.push(new QuestionCreation("comment", "text"));
    if (!this.fields.some((f) => f.type !== "no mapping"))
      this.fields.push({ name: "prompt", title: "prompt", required: true, type: "text", useMarkdown: false });
    const mapped = this.fields.filter((f) => f.type !== "no mapping");
    if (mapped.length === 1 && mapped[0]) mapped[0].required = true;
    this.normalizeRequired();
  }

  /**
   * Adds (or replaces) the metadata property read from `column`; its name follows the server's rule
   * without colliding with the other properties' names (the title keeps the column's name).
   */
  addMetadata(column: string, type: MetadataType, title = column): MetadataCreation {
    this.metadata = this.metadata.filter((m) => m.column !== column);
    const used = new Set(this.metadata.map((m) => m.name));
    const property = { name: uniqueServerName(serverName(column, "metadata"), used), column, title, type };
    this.metadata.push(property);
    return property;
  }

  /** A single question is marked required. */
  normalizeRequired(): void {
    if (this.questions.length === 1 && this.questions[0]) this.questions[0].required = true;
  }

  addQuestion(type: QuestionType): QuestionCreation {
    const q = QuestionCreation.withDefaults(`${type} ${this.questions.filter((x) => x.type === type).length + 1}`, type);
    this.questions.push(q);
    this.normalizeRequired();
    return q;
  }

  removeQuestion(name: string): void {
    this.questions = this.questions.filter((q) => q.name !== name);
    this.normalizeRequired();
  }

  /** The import mapping; external_id is the chosen column (by default a column named id). */
  get mapping(): HubMapping {
    return {
      fields: this.fields
        .filter((f) => f.type !== "no mapping" && this.columns.includes(f.name))
        .map((f) => ({ source: f.name, target: f.name })),
      metadata: this.metadata.filter((m) => this.columns.includes(m.column)).map((m) => ({ source: m.column, target: m.name })),
      suggestions: this.questions.filter((q) => q.column !== null).map((q) => ({ source: q.column as string, target: q.name })),
      external_id: this.externalId !== null && this.columns.includes(this.externalId) ? this.externalId : null,
    };
  }
}

/** The dataset-creation model built from a Hub repository (only one subset may be used). */
export class DatasetCreation {
  name: string;
  selectedSubset: HubSubset;
  workspace: { id?: string; name: string } | null = null;

  constructor(
    readonly repoId: string,
    readonly subsets: HubSubset[],
  ) {
    if (!subsets[0]) throw new Error("A Hub dataset needs at least one subset");
    this.selectedSubset = subsets[0];
    this.name = repoId.split("/").pop() ?? repoId;
  }

  static fromInfo(repoId: string, infos: HubSubsetInfo[]): DatasetCreation {
    return new DatasetCreation(
      repoId,
      infos.map((i) => new HubSubset(i.name, i.splits, i.features)),
    );
  }

  selectSubset(name: string): void {
    const s = this.subsets.find((x) => x.name === name);
    if (s) this.selectedSubset = s;
  }

  get mapping(): HubMapping {
    return this.selectedSubset.mapping;
  }

  /** At least one question, at least one required question, no invalid questions. */
  validate(): Message[] {
    const qs = this.selectedSubset.questions;
    const errors: Message[] = [];
    if (qs.length === 0) errors.push(MESSAGES.atLeastOneQuestion);
    else if (!qs.some((q) => q.required)) errors.push(MESSAGES.atLeastOneRequired);
    if (qs.some((q) => !q.isValid)) errors.push(MESSAGES.hasInvalidQuestions);
    return errors;
  }

  get isValid(): boolean {
    return this.validate().length === 0 && this.name.trim() !== "" && this.workspace !== null;
  }
}
