import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import type { AppContext } from "../context.js";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { isMember } from "../auth/policies.js";
import { conflict, forbidden, HttpError, notFound, parse, unprocessable } from "../http/errors.js";
import { now } from "../clock.js";
import { recordFor, uuidPath } from "../records/access.js";
import { loadDatasetSchema, type DatasetRow, type DatasetSchema } from "../records/dataset-schema.js";
import { responsesBulkSchema, responseUpsertSchema } from "../records/input.js";
import { responseOut, type RecordRow, type ResponseRow } from "../records/read.js";
import { refreshRecordStatuses } from "../records/status.js";
import { RecordValueError, validateResponseValues } from "../records/values.js";

type Status = "submitted" | "draft" | "discarded";
type Values = Record<string, unknown> | null | undefined;

function checkValues(schema: DatasetSchema, record: RecordRow, status: Status, values: Values): void {
  try {
    validateResponseValues(
      schema,
      status,
      values as Record<string, { value: unknown }> | null | undefined,
      JSON.parse(record.fields) as Record<string, unknown>,
    );
  } catch (error) {
    if (error instanceof RecordValueError) throw unprocessable(error.message);
    throw error;
  }
}

/** After any response change: the record status (3.13) and the dataset's last activity (3.4). Returns the record's new status. */
async function afterResponseChange(
  db: Kysely<DB>,
  schema: DatasetSchema,
  recordIds: string[],
  timestamp: string,
): Promise<RecordRow["status"] | undefined> {
  await refreshRecordStatuses(db, recordIds, schema.minSubmitted);
  await db.updateTable("datasets").set({ last_activity_at: timestamp }).where("id", "=", schema.dataset.id).execute();
  return (await db.selectFrom("records").select("status").where("id", "=", recordIds[0]!).executeTakeFirst())?.status;
}

/** Webhook events of a response change: the response event, record.updated (status recomputed), record.completed when it just became completed. */
function emitResponseChange(
  ctx: AppContext,
  type: "response.created" | "response.updated",
  responseId: string,
  record: RecordRow,
  status: RecordRow["status"] | undefined,
): void {
  ctx.events.emit(type, { responseId });
  ctx.events.emit("record.updated", { recordIds: [record.id] });
  if (status === "completed" && record.status !== "completed") ctx.events.emit("record.completed", { recordIds: [record.id] });
}

/** Owner; the response's own user; or an admin member of the dataset's workspace (contract 1.4). */
async function canChangeResponse(db: Kysely<DB>, user: UserRow, response: ResponseRow, dataset: DatasetRow): Promise<boolean> {
  if (user.role === "owner") return true;
  if (!(await isMember(db, user, dataset.workspace_id))) return false;
  return response.user_id === user.id || user.role === "admin";
}

async function responseFor(
  db: Kysely<DB>,
  user: UserRow,
  responseId: string,
): Promise<{ response: ResponseRow; record: RecordRow; dataset: DatasetRow }> {
  const response = await db.selectFrom("responses").selectAll().where("id", "=", responseId).executeTakeFirst();
  if (!response) throw notFound(`Response with id \`${responseId}\` not found`);
  const record = await db.selectFrom("records").selectAll().where("id", "=", response.record_id).executeTakeFirstOrThrow();
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", record.dataset_id).executeTakeFirstOrThrow();
  if (!(await canChangeResponse(db, user, response, dataset))) throw forbidden();
  return { response, record, dataset };
}

async function writeResponse(
  db: Kysely<DB>,
  id: string,
  recordId: string,
  userId: string,
  status: Status,
  values: Values,
  timestamp: string,
  create: boolean,
  expectedUpdatedAt: string | null = null,
): Promise<ResponseRow> {
  const stored = values === undefined || values === null ? null : JSON.stringify(values);
  if (create) {
    await db
      .insertInto("responses")
      .values({ id, record_id: recordId, user_id: userId, status, values: stored, inserted_at: timestamp, updated_at: timestamp })
      .execute();
  } else {
    let update = db.updateTable("responses").set({ status, values: stored, updated_at: timestamp }).where("id", "=", id);
    // the precondition is part of the UPDATE itself, so two writers racing on both stores see exactly one winner
    if (expectedUpdatedAt !== null) update = update.where("updated_at", "=", expectedUpdatedAt);
    const result = await update.executeTakeFirst();
    if (expectedUpdatedAt !== null && Number(result.numUpdatedRows) === 0) {
      throw new HttpError(412, { detail: `Response with id \`${id}\` was changed after ${expectedUpdatedAt}` });
    }
  }
  return db.selectFrom("responses").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/**
 * The optional `If-Match` precondition of PUT /responses/{id}: the `updated_at` the caller's change was based on
 * (quoted like an entity tag, or bare). The web app's offline outbox sends it so that a response changed meanwhile
 * (another tab, a reviewer, the SDK) is never silently overwritten; callers without it (the SDK) update as before.
 */
function expectedUpdatedAt(header: string | string[] | undefined): string | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value || value === "*") return null;
  return value.replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
}

/** Responses (contract 3.11). */
export function responsesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/records/:record_id/responses", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "read");
    const body = parse(responseUpsertSchema, request.body);
    const schema = await loadDatasetSchema(ctx.db, dataset);
    checkValues(schema, record, body.status, body.values);
    const timestamp = now();
    const created = await ctx.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom("responses")
        .select("id")
        .where("record_id", "=", record.id)
        .where("user_id", "=", user.id)
        .executeTakeFirst();
      if (existing) throw conflict(`Response already exists for record with id \`${record.id}\` and by user with id \`${user.id}\``);
      const row = await writeResponse(trx, randomUUID(), record.id, user.id, body.status, body.values, timestamp, true);
      return { row, status: await afterResponseChange(trx, schema, [record.id], timestamp) };
    });
    emitResponseChange(ctx, "response.created", created.row.id, record, created.status);
    return reply.status(201).send(responseOut(created.row));
  });

  app.put("/api/v1/responses/:response_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { response, record, dataset } = await responseFor(ctx.db, user, uuidPath(request, "response_id"));
    const body = parse(responseUpsertSchema, request.body);
    const expected = expectedUpdatedAt(request.headers["if-match"]);
    const schema = await loadDatasetSchema(ctx.db, dataset);
    checkValues(schema, record, body.status, body.values);
    const timestamp = now();
    const updated = await ctx.db.transaction().execute(async (trx) => {
      const row = await writeResponse(trx, response.id, record.id, response.user_id, body.status, body.values, timestamp, false, expected);
      return { row, status: await afterResponseChange(trx, schema, [record.id], timestamp) };
    });
    emitResponseChange(ctx, "response.updated", updated.row.id, record, updated.status);
    return responseOut(updated.row);
  });

  app.delete("/api/v1/responses/:response_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { response, dataset } = await responseFor(ctx.db, user, uuidPath(request, "response_id"));
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const timestamp = now();
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("responses").where("id", "=", response.id).execute();
      await afterResponseChange(trx, schema, [response.record_id], timestamp);
    });
    ctx.events.emit("response.deleted", { id: response.id });
    ctx.events.emit("record.updated", { recordIds: [response.record_id] });
    return responseOut(response);
  });

  app.post("/api/v1/me/responses/bulk", async (request) => {
    const user = await ctx.currentUser(request);
    const body = parse(responsesBulkSchema, request.body);
    const schemas = new Map<string, DatasetSchema>();
    const items: { item: ReturnType<typeof responseOut> | null; error: { detail: string } | null }[] = [];
    for (const entry of body.items) {
      try {
        const { record, dataset } = await recordFor(ctx.db, user, entry.record_id, "read");
        let schema = schemas.get(dataset.id);
        if (!schema) {
          schema = await loadDatasetSchema(ctx.db, dataset);
          schemas.set(dataset.id, schema);
        }
        checkValues(schema, record, entry.status, entry.values);
        const timestamp = now();
        const datasetSchema = schema;
        const { row, created, status } = await ctx.db.transaction().execute(async (trx) => {
          const existing = await trx
            .selectFrom("responses")
            .select("id")
            .where("record_id", "=", record.id)
            .where("user_id", "=", user.id)
            .executeTakeFirst();
          const written = await writeResponse(
            trx,
            existing?.id ?? randomUUID(),
            record.id,
            user.id,
            entry.status,
            entry.values,
            timestamp,
            !existing,
          );
          return { row: written, created: !existing, status: await afterResponseChange(trx, datasetSchema, [record.id], timestamp) };
        });
        emitResponseChange(ctx, created ? "response.created" : "response.updated", row.id, record, status);
        items.push({ item: responseOut(row), error: null });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        items.push({ item: null, error: { detail: errorDetail(error) } });
      }
    }
    return { items };
  });
}

function errorDetail(error: HttpError): string {
  const body = error.body as { detail?: unknown; message?: unknown };
  if (typeof body.detail === "string") return body.detail;
  const params = (body.detail as { params?: { detail?: unknown } } | undefined)?.params;
  if (typeof params?.detail === "string") return params.detail;
  return typeof body.message === "string" ? body.message : error.message;
}
