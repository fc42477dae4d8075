import type { AppContext } from "../context.js";
import { HUB_IMPORT_JOB, runHubImport, type HubImportPayload } from "../hub/import-job.js";
import { HUB_EXPORT_JOB, runHubExport, unconfiguredHubUploader, type HubExportPayload } from "../hub/export-job.js";

/** Binds every job type to its handler (one place, like a composition root for jobs). */
export function registerJobHandlers(ctx: AppContext): void {
  ctx.jobs.register<HubImportPayload, unknown>(HUB_IMPORT_JOB, (payload, context) =>
    runHubImport({ db: ctx.db, hub: ctx.hub, events: ctx.events }, payload, context),
  );
  // No Hub uploader ships yet: exports fail with a clear message (docs/hub.md).
  ctx.jobs.register<HubExportPayload, unknown>(HUB_EXPORT_JOB, (payload, context) =>
    runHubExport({ db: ctx.db, uploader: unconfiguredHubUploader }, payload, context),
  );
}
