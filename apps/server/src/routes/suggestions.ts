import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { requireAdminMember } from "../auth/policies.js";
import { notFound, parse, unprocessable, uuidParam } from "../http/errors.js";
import { now } from "../clock.js";
import { parseIdList, recordFor, uuidPath } from "../records/access.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import { agentSchema } from "../records/input.js";
import { suggestionOut } from "../records/read.js";
import { RecordValueError, validateSuggestionValue } from "../records/values.js";

const unitScore = z.number().min(0).max(1);
const SuggestionUpsert = z.object({
  question_id: uuidParam,
  type: z.enum(["model", "human"]).nullable().optional(),
  value: z.unknown().refine((v) => v !== undefined, { message: "Field required" }),
  agent: agentSchema.nullable().optional(),
  score: z
    .union([unitScore, z.array(unitScore).min(1)])
    .nullable()
    .optional(),
});

/** Suggestions (contract 3.9 and 3.12). */
export function suggestionsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/records/:record_id/suggestions", async (request) => {
    const user = await ctx.currentUser(request);
    const { record } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "read");
    const rows = await ctx.db.selectFrom("suggestions").selectAll().where("record_id", "=", record.id).orderBy("inserted_at").execute();
    return { items: rows.map(suggestionOut) };
  });

  app.put("/api/v1/records/:record_id/suggestions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const body = parse(SuggestionUpsert, request.body);
    const schema = await loadDatasetSchema(ctx.db, dataset);
    const question = schema.questionById.get(body.question_id);
    if (!question) throw unprocessable(`Question with id \`${body.question_id}\` not found`);
    try {
      validateSuggestionValue(question, body.value, body.score, JSON.parse(record.fields) as Record<string, unknown>);
    } catch (error) {
      if (error instanceof RecordValueError) throw unprocessable(error.message);
      throw error;
    }
    const timestamp = now();
    const values = {
      value: JSON.stringify(body.value),
      score: body.score === undefined || body.score === null ? null : JSON.stringify(body.score),
      agent: body.agent ?? null,
      type: body.type ?? null,
      updated_at: timestamp,
    };
    const { row, created } = await ctx.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom("suggestions")
        .select("id")
        .where("record_id", "=", record.id)
        .where("question_id", "=", question.id)
        .executeTakeFirst();
      const id = existing?.id ?? randomUUID();
      if (existing) await trx.updateTable("suggestions").set(values).where("id", "=", id).execute();
      else
        await trx
          .insertInto("suggestions")
          .values({ id, record_id: record.id, question_id: question.id, inserted_at: timestamp, ...values })
          .execute();
      return { row: await trx.selectFrom("suggestions").selectAll().where("id", "=", id).executeTakeFirstOrThrow(), created: !existing };
    });
    return reply.status(created ? 201 : 200).send(suggestionOut(row));
  });

  app.delete("/api/v1/records/:record_id/suggestions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const ids = parseIdList(request.query, "No suggestions IDs provided", "Cannot delete more than 100 suggestions at once");
    await ctx.db.deleteFrom("suggestions").where("record_id", "=", record.id).where("id", "in", ids).execute();
    return reply.status(204).send();
  });

  app.delete("/api/v1/suggestions/:suggestion_id", async (request) => {
    const user = await ctx.currentUser(request);
    const suggestionId = uuidPath(request, "suggestion_id");
    const suggestion = await ctx.db.selectFrom("suggestions").selectAll().where("id", "=", suggestionId).executeTakeFirst();
    if (!suggestion) throw notFound(`Suggestion with id \`${suggestionId}\` not found`);
    const dataset = await ctx.db
      .selectFrom("records")
      .innerJoin("datasets", "datasets.id", "records.dataset_id")
      .select("datasets.workspace_id")
      .where("records.id", "=", suggestion.record_id)
      .executeTakeFirstOrThrow();
    await requireAdminMember(ctx.db, user, dataset.workspace_id);
    await ctx.db.deleteFrom("suggestions").where("id", "=", suggestion.id).execute();
    return suggestionOut(suggestion);
  });
}
