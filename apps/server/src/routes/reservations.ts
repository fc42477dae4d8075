import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { notFound, parse } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { RESERVATION_TIMEOUT_MAX_SECONDS, RESERVATION_TIMEOUT_MIN_SECONDS } from "@tessera/domain";
import { inProgress, release, releaseUserOf, renew, setTtl, ttlOf } from "../reservations/manage.js";

const TtlBody = z
  .object({ ttl_seconds: z.number().int().min(RESERVATION_TIMEOUT_MIN_SECONDS).max(RESERVATION_TIMEOUT_MAX_SECONDS) })
  .strict();

/**
 * Reservations of the annotation queue (issue 29, docs/api.md "Reservations"): Tessera's own
 * endpoints, beside the contract. Records are reserved by `reserve=true` on the caller's search.
 */
export function reservationsRoutes(app: FastifyInstance, ctx: AppContext): void {
  /** The caller still works on their records: extends their reservations of the dataset. */
  app.post("/api/v1/me/datasets/:dataset_id/reservations/renew", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await datasetFor(ctx.db, user, uuidPath(request, "dataset_id"), "read");
    const renewed = await renew(ctx.db, dataset.id, user.id, await ttlOf(ctx.db, dataset.id));
    return { records: renewed.records, expires_at: renewed.expiresAt };
  });

  /** The caller leaves the dataset: their records go back to the team's queue. */
  app.delete("/api/v1/me/datasets/:dataset_id/reservations", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await datasetFor(ctx.db, user, uuidPath(request, "dataset_id"), "read");
    return { released: await release(ctx.db, user.id, dataset.id) };
  });

  /** The caller signs out: every reservation of theirs goes back. */
  app.delete("/api/v1/me/reservations", async (request) => {
    const user = await ctx.currentUser(request);
    return { released: await release(ctx.db, user.id, null) };
  });

  /** Records in progress, overall and per annotator, and the time-out (owners and the workspace's admins). */
  app.get("/api/v1/datasets/:dataset_id/reservations", async (request) => {
    const user = await ctx.currentUser(request);
    const dataset = await datasetFor(ctx.db, user, uuidPath(request, "dataset_id"), "admin");
    const [progress, ttl] = await Promise.all([inProgress(ctx.db, dataset.id), ttlOf(ctx.db, dataset.id)]);
    return { in_progress: progress.records, users: progress.users, ttl_seconds: ttl };
  });

  /** An admin releases every reservation of one user in the dataset. */
  app.delete("/api/v1/datasets/:dataset_id/reservations/users/:user_id", async (request) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const userId = uuidPath(request, "user_id");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const released = await releaseUserOf(ctx.db, userId, dataset.id);
    if (released === null) throw notFound(`User with id \`${userId}\` not found`);
    return { released };
  });

  /** The dataset's reservation time-out in seconds (1..86400; default 300). */
  app.put("/api/v1/datasets/:dataset_id/reservations/settings", async (request) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const body = parse(TtlBody, request.body);
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    await setTtl(ctx.db, dataset.id, body.ttl_seconds);
    return { ttl_seconds: body.ttl_seconds };
  });
}
