import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { computeAgreement } from "../review/compute-agreement.js";
import { resolveScope, reviewDataset, ScopeBody } from "../review/scope.js";

const AgreementQuery = z.object({ question: z.string().min(1).optional() });

/**
 * Inter-annotator agreement (issue 22, docs/api.md "Agreement and review"): owners and admins of the
 * dataset's workspace only. GET for the whole dataset (optionally one `question`); POST with the
 * annotation page's filters, chosen annotators and question.
 */
export function agreementRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/agreement", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await reviewDataset(ctx.db, user, uuidPath(request, "dataset_id"));
    const query = parse(AgreementQuery, request.query, "query");
    return computeAgreement(ctx.db, await resolveScope(ctx.store, dataset, { question: query.question ?? null }));
  });

  app.post("/api/v1/datasets/:dataset_id/agreement", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await reviewDataset(ctx.db, user, uuidPath(request, "dataset_id"));
    const body = parse(ScopeBody.nullable(), request.body ?? null) ?? {};
    return computeAgreement(ctx.db, await resolveScope(ctx.store, dataset, body));
  });
}
