import {
  PageCriteria,
  RecordCriteria,
  type MetadataFilter,
  type RecordStatus,
  type ResponseFilter,
  type SimilarityCriteria,
  type SortItem,
  type SuggestionFilter,
} from "@tessera/domain";
import { parseQuery, stringifyQuery, type QueryParams, type QueryValue } from "../../shared/query-params";
import { PAGE_SIZES } from "./annotation-view-model";

const STATUSES: RecordStatus[] = ["pending", "draft", "submitted", "discarded"];

function one(query: QueryParams, key: string): string | undefined {
  const v = query[key];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function json<T>(query: QueryParams, key: string, fallback: T): T {
  const raw = one(query, key);
  if (!raw) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

/** A JSON list of objects from the URL (anything else, e.g. a hand-edited value, gives the empty list). */
function list<T>(query: QueryParams, key: string): T[] {
  const value = json<unknown>(query, key, []);
  return Array.isArray(value) ? value.filter((v): v is T => typeof v === "object" && v !== null) : [];
}

/**
 * The URL state of the annotation screen: `_page` is `N` (focus) or `N~size` (bulk), then status,
 * search (+ field), metadata / response / suggestion filters, sort and similarity (JSON values).
 */
export function criteriaFromQuery(datasetId: string, query: QueryParams): RecordCriteria {
  const pageRaw = one(query, "_page") ?? "1";
  const [n, size] = pageRaw.split("~");
  const page = Math.max(1, Number.parseInt(n ?? "1", 10) || 1);
  const sizeNum = Number(size);
  const bulk = size !== undefined;
  const status = one(query, "_status") as RecordStatus | undefined;
  return new RecordCriteria({
    datasetId,
    page: new PageCriteria(page, bulk ? "bulk" : "focus", (PAGE_SIZES as readonly number[]).includes(sizeNum) ? sizeNum : 10),
    status: status && STATUSES.includes(status) ? status : "pending",
    searchText: one(query, "_search") ?? "",
    searchField: one(query, "_field") ?? null,
    metadata: list<MetadataFilter>(query, "_metadata"),
    responses: list<ResponseFilter>(query, "_response"),
    suggestions: list<SuggestionFilter>(query, "_suggestion"),
    sort: list<SortItem>(query, "_sort").filter(
      (s) => typeof s.key === "object" && s.key !== null && (s.order === "asc" || s.order === "desc"),
    ),
    similarity: json<SimilarityCriteria | null>(query, "_similarity", null),
  });
}

const asJson = (value: unknown[] | object | null): string | null =>
  value === null || (Array.isArray(value) && value.length === 0) ? null : JSON.stringify(value);

export function criteriaToQuery(c: RecordCriteria): Record<string, QueryValue> {
  return {
    _page: c.page.mode === "bulk" ? `${c.page.page}~${c.page.size}` : String(c.page.page),
    _status: c.status,
    _search: c.searchText || null,
    _field: c.searchText ? c.searchField : null,
    _metadata: asJson(c.metadata),
    _response: asJson(c.responses),
    _suggestion: asJson(c.suggestions),
    _sort: asJson(c.sort),
    _similarity: asJson(c.similarity),
  };
}

/** The search string the annotation page writes for these criteria. */
export function criteriaSearch(c: RecordCriteria): string {
  return stringifyQuery(criteriaToQuery(c));
}

/**
 * The view a URL's search string describes, written the way the page writes it: two search strings
 * show the same view when this is the same, whatever the order of their parameters (a link written by
 * hand, or parameters merged into a URL that had others first), their encoding ('+' or '%20'), values
 * left out for their default, or parameters the page does not read.
 */
export function viewOfSearch(datasetId: string, search: string): string {
  return criteriaSearch(criteriaFromQuery(datasetId, parseQuery(search)));
}
