import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse, uuidParam } from "../http/errors.js";
import { parseIdList, recordFor, uuidPath } from "../records/access.js";
import { agentSchema } from "../records/input.js";
import { suggestionOut } from "../records/read.js";
import { listSuggestions } from "../records/use-cases/list-suggestions.js";
import { upsertSuggestion } from "../records/use-cases/upsert-suggestion.js";
import { deleteRecordSuggestions } from "../records/use-cases/delete-record-suggestions.js";
import { deleteSuggestion } from "../records/use-cases/delete-suggestion.js";

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
    return { items: (await listSuggestions(ctx.db, record.id)).map(suggestionOut) };
  });

  app.put("/api/v1/records/:record_id/suggestions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const body = parse(SuggestionUpsert, request.body);
    const { row, created } = await upsertSuggestion(ctx.db, record, dataset, body);
    return reply.status(created ? 201 : 200).send(suggestionOut(row));
  });

  app.delete("/api/v1/records/:record_id/suggestions", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record } = await recordFor(ctx.db, user, uuidPath(request, "record_id"), "admin");
    const ids = parseIdList(request.query, "No suggestions IDs provided", "Cannot delete more than 100 suggestions at once");
    await deleteRecordSuggestions(ctx.db, record.id, ids);
    return reply.status(204).send();
  });

  app.delete("/api/v1/suggestions/:suggestion_id", async (request) => {
    const user = await ctx.currentUser(request);
    const suggestionId = uuidPath(request, "suggestion_id");
    return suggestionOut(await deleteSuggestion(ctx.db, user, suggestionId));
  });
}
