import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import formbody from "@fastify/formbody";
import type { AppContext } from "./context.js";
import { HttpError, installErrorHandler } from "./http/errors.js";
import { serveWebApp } from "./http/web-app.js";
import { authRoutes } from "./routes/auth.js";
import { meRoutes } from "./routes/me.js";
import { settingsRoutes } from "./routes/settings.js";
import { recordsRoutes } from "./routes/records.js";
import { responsesRoutes } from "./routes/responses.js";
import { suggestionsRoutes } from "./routes/suggestions.js";
import { searchRoutes } from "./routes/search.js";
import { progressRoutes } from "./routes/progress.js";
import { jobsRoutes } from "./routes/jobs.js";
import { importRoutes } from "./routes/import.js";
import { oauthRoutes } from "./routes/oauth.js";
import { usersRoutes } from "./routes/users.js";
import { workspacesRoutes } from "./routes/workspaces.js";
import { datasetsRoutes } from "./routes/datasets.js";
import { fieldsRoutes } from "./routes/fields.js";
import { questionsRoutes } from "./routes/questions.js";
import { metadataPropertiesRoutes } from "./routes/metadata-properties.js";
import { vectorSettingsRoutes } from "./routes/vector-settings.js";
import { webhooksRoutes } from "./routes/webhooks.js";
import { legacyRecordsRoutes } from "./routes/legacy-records.js";
import { exportRoutes } from "./routes/export.js";
import { recordsExportRoutes } from "./routes/records-export.js";
import { uploadsRoutes } from "./routes/uploads.js";
import { agreementRoutes } from "./routes/agreement.js";
import { reviewRoutes } from "./routes/review.js";
import { reservationsRoutes } from "./routes/reservations.js";
import { installSecurity } from "./security/index.js";
import { clientErrorHandler } from "./security/client-errors.js";

export const BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Builds the HTTP application: every route module registers itself against the shared context. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: ctx.config.logLevel },
    bodyLimit: BODY_LIMIT_BYTES,
    ajv: { customOptions: { coerceTypes: false } },
    routerOptions: { maxParamLength: 500 },
    trustProxy: ctx.config.security.trustProxy,
    clientErrorHandler,
  });
  installErrorHandler(app);
  installSecurity(app, ctx.config.security);
  await app.register(formbody);
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("X-Content-Type-Options", "nosniff");
    reply.header("Referrer-Policy", "same-origin");
    return payload;
  });
  authRoutes(app, ctx);
  meRoutes(app, ctx);
  settingsRoutes(app, ctx.config.hostedSpace, ctx.store, async (request) => signedIn(ctx, request));
  oauthRoutes(app, ctx);
  usersRoutes(app, ctx);
  workspacesRoutes(app, ctx);
  datasetsRoutes(app, ctx);
  fieldsRoutes(app, ctx);
  questionsRoutes(app, ctx);
  metadataPropertiesRoutes(app, ctx);
  vectorSettingsRoutes(app, ctx);
  jobsRoutes(app, ctx);
  importRoutes(app, ctx);
  recordsRoutes(app, ctx);
  responsesRoutes(app, ctx);
  suggestionsRoutes(app, ctx);
  searchRoutes(app, ctx);
  reservationsRoutes(app, ctx);
  progressRoutes(app, ctx);
  webhooksRoutes(app, ctx);
  legacyRecordsRoutes(app, ctx);
  exportRoutes(app, ctx);
  recordsExportRoutes(app, ctx);
  uploadsRoutes(app, ctx);
  agreementRoutes(app, ctx);
  reviewRoutes(app, ctx);
  await serveWebApp(app, ctx.config.webDist);
  return app;
}

/** Whether the caller is signed in (a 401 means no; a database outage propagates: the status route tells that caller the database is unreachable, every other route answers 503). */
async function signedIn(ctx: AppContext, request: FastifyRequest): Promise<boolean> {
  try {
    await ctx.currentUser(request);
    return true;
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) return false;
    throw error;
  }
}
