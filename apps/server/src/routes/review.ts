import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { notFound, parse } from "../http/errors.js";
import { parsePaging, uuidPath } from "../records/access.js";
import { reviewRecord } from "../review/review-record.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import { checkFinalAnswer, clearFinalAnswer, FinalAnswerBody, saveFinalAnswer } from "../review/final-answers.js";
import { listReviewRecords, reviewItems } from "../review/review-records.js";
import { resolveScope, reviewDataset, ScopeBody } from "../review/scope.js";
import { finalAnswerIds } from "../review/submitted-answers.js";
import { scopeSummary, summaryProgress } from "../review/progress.js";

const ReviewListBody = ScopeBody.extend({
  /** Only records whose submitted responses differ (on `question`, or on any question). Default true. */
  disagreements: z.boolean().optional(),
  /** true: only records with a final answer; false: only those without; absent or null: both. */
  reviewed: z.boolean().nullable().optional(),
});
const ProgressQuery = z.object({ question: z.string().min(1).optional() });

/**
 * Review workflow (issue 22, docs/api.md "Agreement and review"): records to review with every
 * annotator's response, final answers stored apart from responses, review progress. Owners and
 * admins of the dataset's workspace only; annotators get 403.
 */
export function reviewRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/datasets/:dataset_id/review/records", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await reviewDataset(ctx.db, user, uuidPath(request, "dataset_id"));
    const paging = parsePaging(request.query);
    const body = parse(ReviewListBody.nullable(), request.body ?? null) ?? {};
    const scope = await resolveScope(ctx.store, dataset, body);
    return listReviewRecords(ctx.db, scope, { disagreements: body.disagreements ?? true, reviewed: body.reviewed ?? null, ...paging });
  });

  app.get("/api/v1/datasets/:dataset_id/review/progress", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await reviewDataset(ctx.db, user, uuidPath(request, "dataset_id"));
    const query = parse(ProgressQuery, request.query, "query");
    const scope = await resolveScope(ctx.store, dataset, { question: query.question ?? null });
    const [summary, finals] = await Promise.all([scopeSummary(ctx.db, scope), finalAnswerIds(ctx.db, dataset.id)]);
    return summaryProgress(summary, finals);
  });

  app.get("/api/v1/records/:record_id/review", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await reviewRecord(ctx.db, user, uuidPath(request, "record_id"));
    const [item] = await reviewItems(ctx.db, await loadDatasetSchema(ctx.db, dataset), [record]);
    return item;
  });

  app.put("/api/v1/records/:record_id/final-answer", async (request) => {
    const user = await ctx.currentUser(request);
    const { record, dataset } = await reviewRecord(ctx.db, user, uuidPath(request, "record_id"));
    const body = parse(FinalAnswerBody, request.body);
    const schema = await loadDatasetSchema(ctx.db, dataset);
    checkFinalAnswer(schema, record, body.values);
    await saveFinalAnswer(ctx.db, record, user.id, body.values);
    const [item] = await reviewItems(ctx.db, schema, [record]);
    return item!.final_answer;
  });

  app.delete("/api/v1/records/:record_id/final-answer", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { record } = await reviewRecord(ctx.db, user, uuidPath(request, "record_id"));
    if (!(await clearFinalAnswer(ctx.db, record.id))) throw notFound(`Record with id \`${record.id}\` has no final answer`);
    return reply.status(204).send();
  });
}
