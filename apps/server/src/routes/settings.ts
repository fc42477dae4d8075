import type { FastifyInstance, FastifyRequest } from "fastify";
import type { HostedSpace } from "../oauth/oauth-config.js";
import { SERVER_VERSION } from "../status/server-version.js";
import { getServerStatus, type StatusStore } from "../status/use-cases/get-server-status.js";

/** The public settings of GET /api/v1/settings (hub.md section 4). */
export function settingsBody(space: HostedSpace | null) {
  return {
    argilla: {
      // Only meaningful on a hosted space; null elsewhere.
      show_huggingface_space_persistent_storage_warning: space ? space.showPersistentStorageWarning : null,
      share_your_progress_enabled: false,
    },
    huggingface: space
      ? {
          space_id: space.spaceId,
          space_title: space.title,
          space_subdomain: space.subdomain,
          space_host: space.host,
          space_repo_name: space.repoName,
          space_author_name: space.authorName,
          space_persistent_storage_enabled: space.persistentStorageEnabled,
        }
      : null,
  };
}

/**
 * GET /api/v1/settings (public), /version and /status. The SDK reads neither /status nor /version to
 * connect (it calls /me; contract 3.1), so anonymous callers (and wrong credentials) get only the
 * version (public anyway at /version); the search engine, memory figures and, with `signedIn` (the
 * app passes it), whether the database answers now (`database`: reachable, latency) are for
 * signed-in users (issue 28, finding 7); during a database outage, a caller whose credentials cannot
 * be checked is told only that the database is unreachable (issue 30).
 */
export function settingsRoutes(
  app: FastifyInstance,
  hostedSpace: HostedSpace | null = null,
  store: StatusStore = { dialect: "sqlite", vectorSearch: true },
  signedIn?: (request: FastifyRequest) => Promise<boolean>,
): void {
  const body = settingsBody(hostedSpace);
  app.get("/api/v1/settings", async () => body);
  app.get("/api/v1/version", async () => ({ version: SERVER_VERSION }));
  app.get("/api/v1/status", async (request) => getServerStatus(store, async () => signedIn !== undefined && (await signedIn(request))));
}
