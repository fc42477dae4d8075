import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { forbidden, notFound, parse } from "../http/errors.js";
import { registerJobHandlers } from "../jobs/handlers.js";

/**
 * `GET /api/v1/jobs/{id}` (contract 3.14) and the job queue's lifecycle: handlers are bound and the
 * queue starts when the app is ready; it stops (waiting for a running job) when the app closes.
 */
export function jobsRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerJobHandlers(ctx);
  app.addHook("onReady", async () => {
    await ctx.jobs.start();
  });
  app.addHook("onClose", async () => {
    await ctx.jobs.stop();
  });

  app.get("/api/v1/jobs/:jobId", async (request) => {
    const user = await ctx.currentUser(request);
    const { jobId } = parse(z.object({ jobId: z.string().min(1).max(200) }), request.params, "path");
    // The contract checks existence before authorization.
    const job = await ctx.jobs.get(jobId);
    if (!job) throw notFound(`Job with id \`${jobId}\` not found`);
    if (user.role !== "owner" && user.role !== "admin") throw forbidden();
    return {
      id: job.id,
      status: job.status,
      error: job.status === "failed" ? job.error : null,
      result: job.status === "finished" ? job.result : null,
    };
  });
}
