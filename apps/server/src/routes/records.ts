import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse, unprocessable } from "../http/errors.js";
import { now } from "../clock.js";
import { parseIdList, parseInclude, parsePaging, recordFor, uuidPath } from "../records/access.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import { ingestRecords, prepareSuggestions, upsertSuggestions, upsertVectors, type IngestResult } from "../records/ingest.js";
import { parseRecordsBulk, recordUpdateSchema } from "../records/input.js";
import { FULL_INCLUDE, withIncludes } from "../records/read.js";
import { RecordValueError, validateMetadata, validateVectors } from "../records/values.js";
import { recordViewer } from "../records/visibility.js";
import { requireAttributableResponses } from "../records/response-attribution.js";

/**
 * Webhook events of a bulk ingestion: record.created / record.updated, and record.completed for new
 * records that are completed on arrival (their responses were part of the item).
 */
export function emitIngested(ctx: AppContext, result: IngestResult): void {
  if (result.createdIds.length > 0) ctx.events.emit("record.created", { recordIds: result.createdIds });
  if (result.updatedIds.length > 0) ctx.events.emit("record.updated", { recordIds: result.updatedIds });
  const created = new Set(result.createdIds);
  const completed = result.items.filter((r) => r.status === "completed" && created.has(r.id)).map((r) => r.id);
  if (completed.length > 0) ctx.events.emit("record.completed", { recordIds: completed });
}

/**
 * The default JSON body parser (secure-json-parse) scans the whole text with two regular expressions
 * for `__proto__` and `constructor` keys (also spelled with \u escapes) after JSON.parse: ~10% of a
 * bulk request's CPU (2-3 MB of vectors per batch). A text with neither word and no \u escape of the
 * characters they are made of (\u005x-\u007x) cannot have those keys, so JSON.parse alone gives the
 * same object; any other text, or a parse error, goes to the default parser (same result, same errors).
 */
function bulkJson(
  app: FastifyInstance,
): (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => void {
  const fallback = app.getDefaultJsonParser("error", "error");
  return (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.length > 0 && !mayHavePoisonKey(text)) {
      try {
        done(null, JSON.parse(text));
        return;
      } catch {
        // Invalid JSON: the default parser reports it.
      }
    }
    fallback(request, text, done);
  };
}

export function mayHavePoisonKey(text: string): boolean {
  if (text.includes("__proto__") || text.includes("constructor")) return true;
  for (let i = text.indexOf("\\u00"); i !== -1; i = text.indexOf("\\u00", i + 4)) {
    const c = text.charCodeAt(i + 4);
    if (c >= 0x35 && c <= 0x37) return true; // "5" to "7": \u0050-\u007f, the letters and "_" of both keys
  }
  return false;
}

/** The content type Fastify gives the JSON it serializes itself (the bulk routes send prebuilt JSON text). */
const JSON_TYPE = "application/json; charset=utf-8";

/** Records (contract 3.9 and 3.10). */
export function recordsRoutes(app: FastifyInstance, ctx: AppContext): void {
  // The bulk routes parse their JSON with bulkJson (same result and errors as the default parser).
  void app.register(async (bulk) => {
    bulk.addContentTypeParser("application/json", { parseAs: "string" }, bulkJson(bulk));

    bulk.post("/api/v1/datasets/:dataset_id/records/bulk", async (request, reply) => {
      const user = await ctx.currentUser(request);
      const datasetId = uuidPath(request, "dataset_id");
      const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
      const body = parseRecordsBulk(request.body);
      await requireAttributableResponses(ctx.db, user, dataset, body.items);
      const result = await ingestRecords(ctx.db, datasetId, body.items, { mode: "create" });
      emitIngested(ctx, result);
      return reply.status(201).type(JSON_TYPE).send(`{"items":${result.itemsJson()}}`);
    });

    bulk.put("/api/v1/datasets/:dataset_id/records/bulk", async (request, reply) => {
      const user = await ctx.currentUser(request);
      const datasetId = uuidPath(request, "dataset_id");
      const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
      const body = parseRecordsBulk(request.body);
      await requireAttributableResponses(ctx.db, user, dataset, body.items);
      const result = await ingestRecords(ctx.db, datasetId, body.items, { mode: "upsert" });
      emitIngested(ctx, result);
      return reply.type(JSON_TYPE).send(`{"items":${result.itemsJson()},"updated_item_ids":${JSON.stringify(result.updatedIds)}}`);
    });
  });

  app.get("/api/v1/datasets/:dataset_id/records", async (request) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const { offset, limit } = parsePaging(request.query);
    const include = parseInclude(request.query);
    const [rows, count] = await Promise.all([
      ctx.db.selectFrom("records").selectAll().where("dataset_id", "=", datasetId).orderBy("seq").limit(limit).offset(offset).execute(),
      ctx.db
        .selectFrom("records")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("dataset_id", "=", datasetId)
        .executeTakeFirstOrThrow(),
    ]);
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const viewer = await recordViewer(ctx.db, user, dataset.workspace_id);
    return { items: await withIncludes(ctx.db, schema, rows, include, viewer), total: Number(count.n) };
  });

  app.delete("/api/v1/datasets/:dataset_id/records", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    await datasetFor(ctx.db, user, datasetId, "admin");
    const ids = parseIdList(request.query, "No record IDs provided", "Cannot delete more than 100 records at once");
    const deleted = await ctx.db.deleteFrom("records").where("dataset_id", "=", datasetId).where("id", "in", ids).returning("id").execute();
    if (deleted.length > 0) ctx.events.emit("record.deleted", { ids: deleted.map((r) => r.id) });
    return reply.status(204).send();
  });

  app.get("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "read");
    const schema = await loadDatasetSchema(ctx.db, dataset);
    return (await withIncludes(ctx.db, schema, [record], FULL_INCLUDE, await recordViewer(ctx.db, user, dataset.workspace_id)))[0];
  });

  app.patch("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const body = parse(recordUpdateSchema, request.body);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const fields = JSON.parse(record.fields) as Record<string, unknown>;
    let suggestions: ReturnType<typeof prepareSuggestions> = [];
    try {
      validateMetadata(schema, body.metadata);
      if (body.suggestions) suggestions = prepareSuggestions(schema, body.suggestions, fields);
      validateVectors(schema, body.vectors);
    } catch (error) {
      if (error instanceof RecordValueError) throw unprocessable(error.message);
      throw error;
    }
    const timestamp = now();
    await ctx.db.transaction().execute(async (trx) => {
      const changes: { updated_at: string; metadata?: string | null } = { updated_at: timestamp };
      if ("metadata" in raw) changes.metadata = body.metadata ? JSON.stringify(body.metadata) : null;
      await trx.updateTable("records").set(changes).where("id", "=", record.id).execute();
      if (body.suggestions !== undefined) {
        await trx.deleteFrom("suggestions").where("record_id", "=", record.id).execute();
        await upsertSuggestions(
          trx,
          suggestions.map((s) => ({ recordId: record.id, ...s })),
          timestamp,
        );
      }
      if (body.vectors) {
        await upsertVectors(
          trx,
          schema,
          Object.entries(body.vectors).map(([name, values]) => ({ recordId: record.id, name, values })),
        );
      }
    });
    const updated = await ctx.db.selectFrom("records").selectAll().where("id", "=", record.id).executeTakeFirstOrThrow();
    ctx.events.emit("record.updated", { recordIds: [record.id] });
    return (await withIncludes(ctx.db, schema, [updated], FULL_INCLUDE, await recordViewer(ctx.db, user, dataset.workspace_id)))[0];
  });

  app.delete("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const out = (await withIncludes(ctx.db, schema, [record], FULL_INCLUDE, await recordViewer(ctx.db, user, dataset.workspace_id)))[0];
    await ctx.db.deleteFrom("records").where("id", "=", record.id).execute();
    ctx.events.emit("record.deleted", { ids: [record.id] });
    return out;
  });
}
