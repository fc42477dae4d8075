import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse } from "../http/errors.js";
import { parseIdList, parseInclude, parsePaging, recordFor, uuidPath } from "../records/access.js";
import { parseRecordsBulk, recordUpdateSchema } from "../records/input.js";
import { importRecords } from "../records/use-cases/import-records.js";
import { listDatasetRecords } from "../records/use-cases/list-dataset-records.js";
import { recordsPageJson } from "../records/records-page-json.js";
import { deleteRecords } from "../records/use-cases/delete-records.js";
import { readRecord } from "../records/use-cases/read-record.js";
import { updateRecord } from "../records/use-cases/update-record.js";
import { deleteRecord } from "../records/use-cases/delete-record.js";

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
      const result = await importRecords(ctx, user, dataset, body.items, "create");
      return reply.status(201).type(JSON_TYPE).send(`{"items":${result.itemsJson()}}`);
    });

    bulk.put("/api/v1/datasets/:dataset_id/records/bulk", async (request, reply) => {
      const user = await ctx.currentUser(request);
      const datasetId = uuidPath(request, "dataset_id");
      const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
      const body = parseRecordsBulk(request.body);
      const result = await importRecords(ctx, user, dataset, body.items, "upsert");
      return reply.type(JSON_TYPE).send(`{"items":${result.itemsJson()},"updated_item_ids":${JSON.stringify(result.updatedIds)}}`);
    });
  });

  app.get("/api/v1/datasets/:dataset_id/records", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const { offset, limit } = parsePaging(request.query);
    const include = parseInclude(request.query);
    const page = await listDatasetRecords(ctx.db, user, dataset, { offset, limit }, include);
    return reply.type(JSON_TYPE).send(recordsPageJson(page));
  });

  app.delete("/api/v1/datasets/:dataset_id/records", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    await datasetFor(ctx.db, user, datasetId, "admin");
    const ids = parseIdList(request.query, "No record IDs provided", "Cannot delete more than 100 records at once");
    await deleteRecords(ctx, datasetId, ids);
    return reply.status(204).send();
  });

  app.get("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "read");
    return readRecord(ctx.db, user, dataset, record);
  });

  app.patch("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const body = parse(recordUpdateSchema, request.body);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    return updateRecord(ctx, user, dataset, record, body, "metadata" in raw);
  });

  app.delete("/api/v1/records/:record_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    return deleteRecord(ctx, user, dataset, record);
  });
}
