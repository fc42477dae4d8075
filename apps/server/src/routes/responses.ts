import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { HttpError, parse } from "../http/errors.js";
import { recordFor, uuidPath } from "../records/access.js";
import type { DatasetSchema } from "../records/dataset-schema.js";
import { responsesBulkSchema, responseUpsertSchema } from "../records/input.js";
import { responseOut } from "../records/read.js";
import { findResponse } from "../responses/use-cases/find-response.js";
import { createResponse } from "../responses/use-cases/create-response.js";
import { updateResponse } from "../responses/use-cases/update-response.js";
import { deleteResponse } from "../responses/use-cases/delete-response.js";
import { saveMyResponse } from "../responses/use-cases/save-my-response.js";

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
    return reply.status(201).send(responseOut(await createResponse(ctx, user, record, dataset, body)));
  });

  app.put("/api/v1/responses/:response_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { response, record, dataset } = await findResponse(ctx.db, user, uuidPath(request, "response_id"));
    const body = parse(responseUpsertSchema, request.body);
    const expected = expectedUpdatedAt(request.headers["if-match"]);
    return responseOut(await updateResponse(ctx, response, record, dataset, body, expected));
  });

  app.delete("/api/v1/responses/:response_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { response, dataset } = await findResponse(ctx.db, user, uuidPath(request, "response_id"));
    await deleteResponse(ctx, response, dataset);
    return responseOut(response);
  });

  app.post("/api/v1/me/responses/bulk", async (request) => {
    const user = await ctx.currentUser(request);
    const body = parse(responsesBulkSchema, request.body);
    const schemas = new Map<string, DatasetSchema>();
    const items: { item: ReturnType<typeof responseOut> | null; error: { detail: string } | null }[] = [];
    for (const entry of body.items) {
      try {
        items.push({ item: responseOut(await saveMyResponse(ctx, user, entry, schemas)), error: null });
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
