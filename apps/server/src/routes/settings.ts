import type { FastifyInstance } from "fastify";

/** GET /api/v1/settings: public; the hosted-space fields are filled by the hosted-space work (issue 8). */
export function settingsRoutes(app: FastifyInstance): void {
  app.get("/api/v1/settings", async () => ({
    argilla: { show_huggingface_space_persistent_storage_warning: null },
    huggingface: null,
  }));
  app.get("/api/v1/version", async () => ({ version: SERVER_VERSION }));
  app.get("/api/v1/status", async () => ({ version: SERVER_VERSION, search_engine: { name: "sqlite-fts5" }, memory: process.memoryUsage() }));
}

export const SERVER_VERSION = "2.8.0";
