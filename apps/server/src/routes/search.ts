import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { UserRow } from "../auth/authenticate.js";
import { datasetFor } from "../auth/policies.js";
import { businessError, parse, unprocessable, uuidParam } from "../http/errors.js";
import { parseInclude, parsePaging, uuidPath } from "../records/access.js";
import { loadDatasetSchema, type DatasetSchema } from "../records/dataset-schema.js";
import type { RecordOut } from "../records/read.js";
import { recordsWithIncludes } from "../records/use-cases/records-with-includes.js";
import { referenceVector } from "../records/use-cases/reference-vector.js";
import { suggestionAgents } from "../records/use-cases/suggestion-agents.js";
import { totalBoundFor, type SearchFilter, type SearchQuery, type SearchScope, type SearchSort } from "../search/search-port.js";
import { searchFor } from "../search/for-store.js";
import { countSearchWords, MAX_SEARCH_TEXT_LENGTH, MAX_SEARCH_WORDS } from "../search/text-query.js";
import { ownResponsesOnly, recordViewer, requireSearchableMetadata, type RecordViewer } from "../records/visibility.js";
import { reserveRequested, reservedQueueWindow, type ReservationsOut } from "../reservations/queue-window.js";

const Scope = z.discriminatedUnion("entity", [
  z.object({ entity: z.literal("record"), property: z.enum(["id", "external_id", "inserted_at", "updated_at", "status"]) }),
  z.object({ entity: z.literal("metadata"), metadata_property: z.string().min(1) }),
  z
    .object({
      entity: z.literal("response"),
      question: z.string().nullable().optional(),
      property: z.literal("status").nullable().optional(),
    })
    .refine((s) => (s.question ?? null) !== null || s.property === "status", {
      message: "Value error, either 'question' or 'property' must be set",
    }),
  z.object({
    entity: z.literal("suggestion"),
    question: z.string(),
    property: z.enum(["value", "agent", "score", "type"]).default("value"),
  }),
]);
type ScopeIn = z.infer<typeof Scope>;

const bound = z.union([z.number(), z.string()]).nullable().optional();
const Filter = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("terms"),
    scope: Scope,
    values: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(1)
      .max(250),
  }),
  z
    .object({ type: z.literal("range"), scope: Scope, ge: bound, le: bound })
    .refine((f) => (f.ge ?? null) !== null || (f.le ?? null) !== null, {
      message: "Value error, at least one of 'ge' or 'le' must be provided",
    })
    .refine(
      (f) => f.ge === null || f.ge === undefined || f.le === null || f.le === undefined || typeof f.ge !== typeof f.le || f.ge <= f.le,
      { message: "Value error, 'ge' must have a value less than or equal to 'le'" },
    ),
]);

/** The search body (contract section 4); the record export (routes/records-export.ts) takes the same. */
export const SearchBody = z
  .object({
    query: z
      .object({
        text: z
          .object({ q: z.string().max(MAX_SEARCH_TEXT_LENGTH), field: z.string().nullable().optional() })
          .nullable()
          .optional(),
        vector: z
          .object({
            name: z.string(),
            record_id: uuidParam.nullable().optional(),
            value: z.array(z.number()).min(1).nullable().optional(),
            order: z.enum(["most_similar", "least_similar"]).default("most_similar"),
          })
          .refine((v) => ((v.record_id ?? null) === null) !== ((v.value ?? null) === null), {
            message: "Value error, either 'record_id' or 'value' must be provided, but not both",
          })
          .nullable()
          .optional(),
      })
      .nullable()
      .optional(),
    filters: z
      .object({ and: z.array(Filter).min(1).max(50) })
      .nullable()
      .optional(),
    sort: z
      .array(z.object({ scope: Scope, order: z.enum(["asc", "desc"]).default("asc") }))
      .min(1)
      .max(10)
      .nullable()
      .optional(),
  })
  .nullable();

/**
 * A similarity search finds at most this many records (the reference server's largest page): the
 * SDK pages through them with offset and limit until a page comes back empty.
 */
export const SIMILARITY_MAX_RESULTS = 1000;

/** Record ids and external ids are text: `("id", "==", 1)` in the SDK filters on external id "1". */
const termValues = (scope: SearchScope, values: (string | number | boolean)[]): unknown[] =>
  scope.entity === "record" && (scope.property === "id" || scope.property === "external_id") ? values.map(String) : values;

export function resolveScope(schema: DatasetSchema, viewer: RecordViewer, scope: ScopeIn): SearchScope {
  const datasetId = schema.dataset.id;
  switch (scope.entity) {
    case "record":
      return { entity: "record", property: scope.property };
    case "metadata":
      if (!schema.metadataByName.has(scope.metadata_property))
        throw unprocessable(`MetadataProperty not found filtering by name=${scope.metadata_property}, dataset_id=${datasetId}`);
      requireSearchableMetadata(schema, viewer, scope.metadata_property);
      return { entity: "metadata", name: scope.metadata_property };
    case "response": {
      const question = scope.question ?? null;
      if (question === null) return { entity: "response_status" };
      if (!schema.questionByName.has(question))
        throw unprocessable(`Question not found filtering by name=${question}, dataset_id=${datasetId}`);
      return { entity: "response_value", questionName: question };
    }
    case "suggestion": {
      const question = schema.questionByName.get(scope.question);
      if (!question) throw unprocessable(`Question not found filtering by name=${scope.question}, dataset_id=${datasetId}`);
      return { entity: "suggestion", questionId: question.id, property: scope.property };
    }
  }
}

/** Records search (contract section 4) and the suggestion agents listing (3.10). */
export function searchRoutes(app: FastifyInstance, ctx: AppContext): void {
  const search = async (user: UserRow, datasetId: string, mine: boolean, rawQuery: unknown, rawBody: unknown) => {
    const dataset = await datasetFor(ctx.db, user, datasetId, mine ? "read" : "admin");
    const paging = parsePaging(rawQuery);
    const include = parseInclude(rawQuery);
    const body = parse(SearchBody, rawBody ?? {}) ?? {};
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const viewer = await recordViewer(ctx.db, user, dataset.workspace_id);

    let text: SearchQuery["text"] = null;
    if (body.query?.text) {
      const field = body.query.text.field ?? null;
      if (field !== null && !schema.fieldByName.has(field))
        throw unprocessable(`Field \`${field}\` not found in dataset \`${dataset.id}\`.`);
      if (countSearchWords(body.query.text.q) > MAX_SEARCH_WORDS)
        throw unprocessable(`The search text has more than ${MAX_SEARCH_WORDS} different words`);
      text = { q: body.query.text.q, field };
    }
    let vector: SearchQuery["vector"] = null;
    if (body.query?.vector) {
      const v = body.query.vector;
      const settings = schema.vectorByName.get(v.name);
      if (!settings) throw unprocessable(`Vector \`${v.name}\` not found in dataset \`${dataset.id}\`.`);
      let value = v.value ?? null;
      const recordId = v.record_id ?? null;
      if (recordId !== null) {
        const reference = await referenceVector(ctx.db, dataset.id, recordId, settings.id);
        if (reference === "no-record") throw unprocessable(`Record with id \`${recordId}\` not found in dataset \`${dataset.id}\`.`);
        if (reference === "no-vector")
          throw businessError("missing_vector", `Record \`${recordId}\` does not have a vector for vector settings \`${v.name}\``);
        value = reference;
      }
      if (value!.length !== settings.dimensions)
        throw unprocessable(`vector must have ${settings.dimensions} elements, got ${value!.length} elements`);
      vector = { settingsId: settings.id, value: value!, order: v.order, excludeRecordId: recordId };
    }
    const filters: SearchFilter[] = (body.filters?.and ?? []).map((f) => {
      const scope = resolveScope(schema, viewer, f.scope);
      return f.type === "terms"
        ? { type: "terms", scope, values: termValues(scope, f.values) }
        : { type: "range", scope, ge: f.ge ?? null, le: f.le ?? null };
    });
    const sort: SearchSort[] = (body.sort ?? []).map((s) => ({ scope: resolveScope(schema, viewer, s.scope), order: s.order }));

    // Similarity: the `offset + limit` nearest, at most SIMILARITY_MAX_RESULTS, of which the page is
    // the part from `offset` on; the total is how many were found (as the reference server's k nearest).
    const query = {
      datasetId: dataset.id,
      userId: mine ? user.id : null,
      text,
      vector,
      filters,
      sort: vector ? [] : sort,
      offset: vector ? 0 : paging.offset,
      limit: vector ? Math.min(SIMILARITY_MAX_RESULTS, paging.offset + paging.limit) : paging.limit,
      totalBound: totalBoundFor({ text, vector, filters }, ctx.config.textTotalBound),
      filterBound: ctx.config.filterTotalBound,
    };
    // reserve=true (web app's queue, issue 29): the window is reserved for the caller (reservations/)
    const reserved = mine && reserveRequested(rawQuery) ? await reservedQueueWindow(ctx.db, dataset, user.id, query) : null;
    const result = reserved ?? (await searchFor(ctx.store).search(query));
    const hits = vector ? result.hits.slice(paging.offset) : result.hits;
    const ids = hits.map((h) => h.recordId);
    const records = await recordsWithIncludes(ctx.db, schema, ids, include, mine ? ownResponsesOnly(viewer) : viewer);
    const recordById = new Map<string, RecordOut>(records.map((r) => [r.id, r]));
    const items = hits
      .filter((h) => recordById.has(h.recordId))
      .map((h) => ({ record: recordById.get(h.recordId)!, query_score: h.score }));
    const answer: { items: typeof items; total: number; total_is_lower_bound?: true; reservations?: ReservationsOut } = {
      items,
      total: result.total,
    };
    // More records match than `total` (TESSERA_TEXT_TOTAL_BOUND, TESSERA_FILTER_TOTAL_BOUND); the SDK ignores the field.
    if (result.totalIsLowerBound) answer.total_is_lower_bound = true;
    if (reserved) answer.reservations = reserved.reservations;
    return answer;
  };

  app.post("/api/v1/me/datasets/:dataset_id/records/search", async (request) => {
    const user = await ctx.currentUser(request);
    return search(user, uuidPath(request, "dataset_id"), true, request.query, request.body);
  });

  app.post("/api/v1/datasets/:dataset_id/records/search", async (request) => {
    const user = await ctx.currentUser(request);
    return search(user, uuidPath(request, "dataset_id"), false, request.query, request.body);
  });

  app.get("/api/v1/datasets/:dataset_id/records/search/suggestions/options", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await datasetFor(ctx.db, user, uuidPath(request, "dataset_id"), "read");
    return { items: await suggestionAgents(ctx.db, dataset.id) };
  });
}
