import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse, unprocessable } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import type { SearchFilter } from "../search/search-port.js";
import { searchFor } from "../search/for-store.js";
import { exportRecordPages } from "../transfer/export/export-records.js";
import { CONTENT_TYPES, csv, EXPORT_FORMATS, jsonLines, parquet } from "../transfer/export/encoders.js";
import { flatColumns } from "../transfer/export/flat-columns.js";
import { recordViewFor } from "../transfer/export/record-view.js";
import { recordViewer } from "../records/visibility.js";
import { resolveScope, SearchBody } from "./search.js";

const single = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
const ExportQuery = z.object({
  format: z.enum(EXPORT_FORMATS).default("jsonl"),
  vectors: z.enum(["true", "false"]).default("false"),
});

/** `attachment` with an ASCII fallback name and the UTF-8 name (RFC 6266 / 5987). */
function attachment(name: string, ext: string): string {
  const ascii = name.replace(/[^\w.-]+/g, "_") || "records";
  return `attachment; filename="${ascii}.${ext}"; filename*=UTF-8''${encodeURIComponent(name)}.${ext}`;
}

/**
 * Record exports (docs/api.md "Record exports"): `GET` (every record) or `POST` with the records
 * search body (the annotation page's text and filters; response scopes refer to the caller) of
 * `/api/v1/datasets/{id}/records/export?format=jsonl|csv|parquet[&vectors=true]`. Any member of the
 * workspace; annotators get only their own responses and the metadata visible to annotators.
 * Everything is validated before the first byte; the body then streams a page at a time.
 */
export function recordsExportRoutes(app: FastifyInstance, ctx: AppContext): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, rawBody: unknown) => {
    const user = await ctx.currentUser(request);
    const dataset = await datasetFor(ctx.db, user, uuidPath(request, "dataset_id"), "read");
    const q = (request.query ?? {}) as Record<string, unknown>;
    const options = parse(ExportQuery, { format: single(q.format), vectors: single(q.vectors) }, "query");
    const body = parse(SearchBody, rawBody ?? {}) ?? {};
    if (body.query?.vector) throw unprocessable("Exports take text and filters; a similarity query cannot be exported");
    const schema = await loadDatasetSchema(ctx.db, dataset);
    let text: { q: string; field: string | null } | null = null;
    if (body.query?.text) {
      const field = body.query.text.field ?? null;
      if (field !== null && !schema.fieldByName.has(field))
        throw unprocessable(`Field \`${field}\` not found in dataset \`${dataset.id}\`.`);
      text = { q: body.query.text.q, field };
    }
    const viewer = await recordViewer(ctx.db, user, dataset.workspace_id);
    const filters: SearchFilter[] = (body.filters?.and ?? []).map((f) =>
      f.type === "terms"
        ? { type: "terms", scope: resolveScope(schema, viewer, f.scope), values: f.values }
        : { type: "range", scope: resolveScope(schema, viewer, f.scope), ge: f.ge ?? null, le: f.le ?? null },
    );
    const view = recordViewFor(viewer, schema);
    const vectors = options.vectors === "true";
    const pages = exportRecordPages(
      { db: ctx.db, search: searchFor(ctx.store), schema, view },
      { text, filters, userId: user.id, vectors, rawJson: options.format === "jsonl" },
    );
    const columns = () => flatColumns(schema, view, vectors);
    const content =
      options.format === "jsonl" ? jsonLines(pages) : options.format === "csv" ? csv(pages, columns()) : parquet(pages, columns());
    return reply
      .header("content-type", CONTENT_TYPES[options.format])
      .header("content-disposition", attachment(dataset.name, options.format))
      .header("cache-control", "no-store")
      .send(Readable.from(content));
  };
  app.get("/api/v1/datasets/:dataset_id/records/export", (request, reply) => handle(request, reply, undefined));
  app.post("/api/v1/datasets/:dataset_id/records/export", (request, reply) => handle(request, reply, request.body));
}
