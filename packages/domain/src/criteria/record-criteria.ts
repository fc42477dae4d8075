import type { OptionValue } from "../entities/answer.js";
import type { RecordStatus } from "../entities/record.js";
import type { RecordSearchBody, SearchFilter, SearchScope, SearchSort } from "./search-body.js";

export type ViewMode = "focus" | "bulk";

/** Records fetched per request in focus mode (the queue keeps a buffer of half of it). */
export const FOCUS_FETCH_SIZE = 10;

/**
 * The user's position: `page` is the 1-based queue position of the first record shown; focus
 * shows one record, bulk shows `size` records. `direction` tells how the position was reached.
 */
export class PageCriteria {
  constructor(
    public page = 1,
    public mode: ViewMode = "focus",
    public size = 10,
    public direction: "forward" | "backward" = "forward",
  ) {}

  /** Records shown at once. */
  get shown(): number {
    return this.mode === "focus" ? 1 : this.size;
  }
  /** Records fetched per request. */
  get fetchSize(): number {
    return this.mode === "focus" ? FOCUS_FETCH_SIZE : this.size;
  }
  /** A buffer is prefetched when the records ahead are at or below this number. */
  get buffer(): number {
    return this.mode === "focus" ? Math.floor(FOCUS_FETCH_SIZE / 2) : this.size;
  }
  get isFirstPage(): boolean {
    return this.page <= 1;
  }
  get isBackward(): boolean {
    return this.direction === "backward";
  }

  next(): void {
    this.page += this.shown;
    this.direction = "forward";
  }
  previous(): void {
    this.page = Math.max(1, this.page - this.shown);
    this.direction = "backward";
  }
  goTo(page: number): void {
    this.direction = page < this.page ? "backward" : "forward";
    this.page = Math.max(1, page);
  }
  goToFirst(): void {
    this.page = 1;
    this.direction = "forward";
  }
  clone(): PageCriteria {
    return new PageCriteria(this.page, this.mode, this.size, this.direction);
  }
}

export type MetadataFilter =
  { kind: "terms"; name: string; values: Array<string | number> } | { kind: "range"; name: string; ge?: number | null; le?: number | null };

export type ResponseFilter =
  { kind: "terms"; question: string; values: OptionValue[] } | { kind: "range"; question: string; ge?: number | null; le?: number | null };

export type SuggestionFilter =
  | { kind: "terms"; question: string; property: "value" | "agent"; values: OptionValue[] }
  | { kind: "range"; question: string; property: "score"; ge?: number | null; le?: number | null };

export type SortKey =
  | { entity: "record"; property: "inserted_at" | "updated_at" }
  | { entity: "metadata"; name: string }
  | { entity: "suggestion"; question: string; property: "value" | "score" }
  | { entity: "response"; question: string };

export interface SortItem {
  key: SortKey;
  order: "asc" | "desc";
}

export interface SimilarityCriteria {
  recordId: string;
  vectorName: string;
  limit: number;
  order: "most" | "least";
}

export interface RecordCriteriaProps {
  datasetId: string;
  page?: PageCriteria;
  status?: RecordStatus;
  searchText?: string;
  searchField?: string | null;
  metadata?: MetadataFilter[];
  responses?: ResponseFilter[];
  suggestions?: SuggestionFilter[];
  sort?: SortItem[];
  similarity?: SimilarityCriteria | null;
}

/** What the user asked for: status, text search, filters, sort, similarity and the page. */
export class RecordCriteria {
  datasetId: string;
  page: PageCriteria;
  status: RecordStatus;
  searchText: string;
  searchField: string | null;
  metadata: MetadataFilter[];
  responses: ResponseFilter[];
  suggestions: SuggestionFilter[];
  sort: SortItem[];
  similarity: SimilarityCriteria | null;

  constructor(props: RecordCriteriaProps) {
    this.datasetId = props.datasetId;
    this.page = props.page ?? new PageCriteria();
    this.status = props.status ?? "pending";
    this.searchText = props.searchText ?? "";
    this.searchField = props.searchField ?? null;
    this.metadata = props.metadata ?? [];
    this.responses = props.responses ?? [];
    this.suggestions = props.suggestions ?? [];
    this.sort = props.sort ?? [];
    this.similarity = props.similarity ?? null;
  }

  get isFilteringBySimilarity(): boolean {
    return this.similarity !== null;
  }
  get isFilteredByText(): boolean {
    return this.searchText.trim() !== "";
  }
  get isFiltered(): boolean {
    return (
      this.isFilteredByText || this.metadata.length + this.responses.length + this.suggestions.length > 0 || this.isFilteringBySimilarity
    );
  }
  get isSorted(): boolean {
    return this.sort.length > 0;
  }
  /**
   * The plain pending queue (no search, filter, sort or similarity): the records the server hands
   * out to the team, which it reserves for the annotator who takes them (issue 29).
   */
  get takesFromTeamQueue(): boolean {
    return this.status === "pending" && !this.isFiltered && !this.isSorted;
  }

  clone(): RecordCriteria {
    return new RecordCriteria({
      datasetId: this.datasetId,
      page: this.page.clone(),
      status: this.status,
      searchText: this.searchText,
      searchField: this.searchField,
      metadata: structuredClone(this.metadata),
      responses: structuredClone(this.responses),
      suggestions: structuredClone(this.suggestions),
      sort: structuredClone(this.sort),
      similarity: this.similarity ? { ...this.similarity } : null,
    });
  }

  /** The search body of api-contract section 4. */
  toSearchBody(): RecordSearchBody {
    const body: RecordSearchBody = {};
    const query: NonNullable<RecordSearchBody["query"]> = {};
    if (this.isFilteredByText) query.text = { q: this.searchText.trim(), field: this.searchField };
    if (this.similarity) {
      query.vector = {
        name: this.similarity.vectorName,
        record_id: this.similarity.recordId,
        max_results: this.similarity.limit,
        order: this.similarity.order === "most" ? "most_similar" : "least_similar",
      };
    }
    if (query.text || query.vector) body.query = query;

    const and: SearchFilter[] = [{ type: "terms", scope: { entity: "response", property: "status" }, values: [this.status] }];
    // The pending filter also adds a record-status filter of pending.
    if (this.status === "pending") and.push({ type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] });
    const push = (f: SearchFilter | null) => {
      if (f) and.push(f);
    };
    for (const m of this.metadata) push(toFilter({ entity: "metadata", metadata_property: m.name }, m));
    for (const r of this.responses) push(toFilter({ entity: "response", question: r.question }, r));
    for (const s of this.suggestions) push(toFilter({ entity: "suggestion", question: s.question, property: s.property }, s));
    body.filters = { and: and.slice(0, MAX_FILTERS) };

    if (this.sort.length > 0) body.sort = this.sort.slice(0, 10).map(toSort);
    return body;
  }
}

/** The contract allows 1..50 filters and 1..250 values per terms filter. */
export const MAX_FILTERS = 50;
export const MAX_TERMS_VALUES = 250;

/**
 * A range with its bounds in order (swapped when ge > le), or null when it has no bound
 * (the contract needs at least one bound, and ge <= le).
 */
export function normalizeRange(
  ge: number | null | undefined,
  le: number | null | undefined,
): { ge: number | null; le: number | null } | null {
  const g = typeof ge === "number" && Number.isFinite(ge) ? ge : null;
  const l = typeof le === "number" && Number.isFinite(le) ? le : null;
  if (g === null && l === null) return null;
  if (g !== null && l !== null && g > l) return { ge: l, le: g };
  return { ge: g, le: l };
}

/** The wire filter, or null for a filter the contract would reject (no values, no bound). */
function toFilter(
  scope: SearchScope,
  f: { kind: "terms"; values: Array<string | number> } | { kind: "range"; ge?: number | null; le?: number | null },
): SearchFilter | null {
  if (f.kind === "terms") {
    const values = Array.isArray(f.values) ? f.values.slice(0, MAX_TERMS_VALUES) : [];
    return values.length > 0 ? { type: "terms", scope, values } : null;
  }
  const bounds = normalizeRange(f.ge, f.le);
  if (!bounds) return null;
  const range: SearchFilter = { type: "range", scope };
  if (bounds.ge !== null) range.ge = bounds.ge;
  if (bounds.le !== null) range.le = bounds.le;
  return range;
}

function toSort(item: SortItem): SearchSort {
  const k = item.key;
  switch (k.entity) {
    case "record":
      return { scope: { entity: "record", property: k.property }, order: item.order };
    case "metadata":
      return { scope: { entity: "metadata", metadata_property: k.name }, order: item.order };
    case "suggestion":
      return { scope: { entity: "suggestion", question: k.question, property: k.property }, order: item.order };
    case "response":
      return { scope: { entity: "response", question: k.question }, order: item.order };
  }
}
