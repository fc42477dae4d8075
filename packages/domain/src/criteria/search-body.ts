/** The record search body of api-contract section 4 (wire shape, shared by the web app and repositories). */
export type RecordScopeProperty = "id" | "external_id" | "inserted_at" | "updated_at" | "status";

export type SearchScope =
  | { entity: "record"; property: RecordScopeProperty }
  | { entity: "metadata"; metadata_property: string }
  | { entity: "response"; question?: string | null; property?: "status" | null }
  | { entity: "suggestion"; question: string; property: "value" | "agent" | "score" };

export type SearchFilter =
  | { type: "terms"; scope: SearchScope; values: Array<string | number> }
  | { type: "range"; scope: SearchScope; ge?: number | string | null; le?: number | string | null };

export interface SearchSort {
  scope: SearchScope;
  order: "asc" | "desc";
}

export interface RecordSearchBody {
  query?: {
    text?: { q: string; field?: string | null };
    vector?: { name: string; record_id: string; max_results: number; order: "most_similar" | "least_similar" };
  };
  filters?: { and: SearchFilter[] };
  sort?: SearchSort[];
}

/** One search call: query parameters offset and limit plus the body. */
export interface RecordSearchRequest {
  datasetId: string;
  offset: number;
  limit: number;
  body: RecordSearchBody;
  /** Reserve the records for the caller (the annotation queue, issue 29; `reserve=true`). */
  reserve?: boolean;
}
