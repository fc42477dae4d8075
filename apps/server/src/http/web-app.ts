import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import fastifyStatic from "@fastify/static";

/**
 * Serves the built web app on the same origin. Unknown paths outside /api fall back to index.html
 * (history mode); unknown /api paths get a JSON 404.
 */
export async function serveWebApp(app: FastifyInstance, webDist: string | null): Promise<void> {
  const hasWeb = webDist !== null && existsSync(join(webDist, "index.html"));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      setHeaders: (reply, path) => {
        reply.header("Cache-Control", path.includes("/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
      },
    });
  }
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (path.startsWith("/api/") || path === "/api" || !hasWeb || request.method !== "GET") {
      return reply.status(404).send({ detail: "Not Found" });
    }
    if (path.startsWith("/assets/")) return reply.status(404).send("Not Found");
    return reply.header("Cache-Control", "no-cache").type("text/html").sendFile("index.html");
  });
}
