import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse, uuidParam } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { recordItemSchema, suggestionCreateSchema, vectorsSchema, type RecordItem } from "../records/input.js";
import { importRecords } from "../records/use-cases/import-records.js";
import { updateRecordsById } from "../records/use-cases/update-records-by-id.js";

/** 1..1000 items per call (contract 3.10, legacy). */
export const MAX_LEGACY_RECORDS = 1000;
/** These bodies carry up to 1000 records: the server-wide limit, like the `/bulk` routes. */
const LEGACY_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

const legacyCreateSchema = z
  .object({
    items: z
      .array(recordItemSchema.omit({ id: true }))
      .min(1)
      .max(MAX_LEGACY_RECORDS),
  })
  .superRefine((body, ctx) => {
    const ids = body.items.map((i) => i.external_id).filter((e): e is string => typeof e === "string");
    if (new Set(ids).size !== ids.length) ctx.addIssue({ code: "custom", message: "External IDs must be unique", path: ["items"] });
  });

const legacyUpdateSchema = z.object({
  items: z
    .array(
      z.object({
        id: uuidParam,
        metadata: z.record(z.string(), z.unknown()).nullable().optional(),
        suggestions: z.array(suggestionCreateSchema).nullable().optional(),
        vectors: vectorsSchema.nullable().optional(),
      }),
    )
    .min(1)
    .max(MAX_LEGACY_RECORDS),
});

/**
 * The deprecated record routes of older SDKs (contract 3.10 "Legacy"), mapped onto the bulk
 * ingestion path (records/ingest.ts: one transaction, all or nothing), both answering 204 as upstream:
 * - `POST /datasets/{id}/records`: create, like `POST .../records/bulk` but up to 1000 items;
 * - `PATCH /datasets/{id}/records`: update existing records by `id` (metadata replaced when sent,
 *   suggestions upserted per question, vectors per name; fields never change). Every id must be a
 *   record of the dataset and appear once (422 otherwise, upstream's messages).
 */
export function legacyRecordsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/datasets/:dataset_id/records", { bodyLimit: LEGACY_BODY_LIMIT_BYTES }, async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const body = parse(legacyCreateSchema, request.body);
    await importRecords(ctx, user, dataset, body.items, "create");
    return reply.status(204).send();
  });

  app.patch("/api/v1/datasets/:dataset_id/records", { bodyLimit: LEGACY_BODY_LIMIT_BYTES }, async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    await datasetFor(ctx.db, user, datasetId, "admin");
    const body = parse(legacyUpdateSchema, request.body);
    // Matched by id only (no external_id, no fields, no responses: the legacy update carries none).
    const items: RecordItem[] = body.items.map((i) => ({ id: i.id, metadata: i.metadata, suggestions: i.suggestions, vectors: i.vectors }));
    await updateRecordsById(ctx, datasetId, items);
    return reply.status(204).send();
  });
}
