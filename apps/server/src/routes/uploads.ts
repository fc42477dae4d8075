import { join } from "node:path";
import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { UserRow } from "../auth/authenticate.js";
import { datasetFor } from "../auth/policies.js";
import { forbidden, HttpError, notFound, parse, unprocessable } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { FILE_IMPORT_JOB, runFileImport, type FileImportPayload } from "../transfer/import/file-import-job.js";
import { inferColumns } from "../transfer/import/infer.js";
import { FileFormatError, formatOf, readRows, type FileRow } from "../transfer/import/readers.js";
import { UploadStore, UploadTooLarge, type UploadState } from "../transfer/import/upload-store.js";

/** Rows shown (and typed) in an upload's preview. */
export const PREVIEW_ROWS = 20;

const pair = z.object({ source: z.string().min(1).max(500), target: z.string().min(1).max(500) });
const ImportBody = z.object({
  dataset_id: z.string().uuid({ message: "Input should be a valid UUID" }),
  mapping: z.object({
    fields: z.array(pair).max(500).default([]),
    metadata: z.array(pair).max(500).default([]),
    suggestions: z.array(pair).max(500).default([]),
    responses: z.array(pair).max(500).default([]),
    vectors: z.array(pair).max(500).default([]),
    external_id: z.string().min(1).max(500).nullable().default(null),
  }),
});

const publicState = (s: UploadState) => {
  const { user_id: _user, mapping: _mapping, cancel_requested: _cancel, ...rest } = s;
  return {
    ...rest,
    progress: s.rows_total ? Math.min(1, s.rows_done / s.rows_total) : s.size > 0 ? Math.min(1, s.bytes_done / s.size) : 0,
  };
};

const requireAdmin = (user: UserRow) => {
  if (user.role !== "owner" && user.role !== "admin") throw forbidden();
};

/**
 * Record uploads (docs/api.md "Record uploads"): `POST /api/v1/uploads?filename=…` streams a file to
 * disk (then, on PostgreSQL, into the database, so that any replica can import it) and answers its preview (columns typed by the Hub import's rules, first rows);
 * `POST /api/v1/uploads/{id}/import` maps it onto a published dataset and queues the import job;
 * `GET /api/v1/uploads/{id}` tells its progress; `POST /api/v1/uploads/{id}/cancel` stops it;
 * `GET /api/v1/uploads/{id}/failures` lists the rows not stored as CSV. Owners and admins only.
 */
export function uploadsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const config = ctx.config.uploads;
  const store = new UploadStore(ctx.db, join(ctx.config.dataDir, "uploads"));
  ctx.jobs.register<FileImportPayload, unknown>(FILE_IMPORT_JOB, (payload, context) =>
    runFileImport({ db: ctx.db, uploads: store, config, events: ctx.events }, payload, context),
  );
  // Abandoned uploads expire (TESSERA_UPLOAD_EXPIRY_HOURS): swept once the server is up, then every
  // hour (or a quarter of the expiry when shorter). Every replica sweeps; the sweep is idempotent.
  const sweep = () =>
    store.sweep(new Date(), config.expiryMs).catch((error: unknown) => app.log.warn({ err: error }, "upload sweep failed"));
  const timer = setInterval(sweep, Math.min(3_600_000, Math.max(1_000, config.expiryMs / 4)));
  timer.unref();
  app.addHook("onReady", async () => {
    void sweep();
  });
  app.addHook("onClose", async () => clearInterval(timer));

  const uploadOf = async (request: FastifyRequest, user: UserRow) => {
    const upload = await store.get(uuidPath(request, "upload_id"));
    if (!upload || (upload.user_id !== user.id && user.role !== "owner")) throw notFound("Upload not found");
    return upload;
  };

  void app.register(async (scope) => {
    // Every body of this route is the file itself, streamed (a .json file sent as application/json too).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    scope.post("/api/v1/uploads", { bodyLimit: config.maxBytes }, async (request, reply) => {
      const user = await ctx.currentUser(request);
      requireAdmin(user);
      const filename = parse(z.object({ filename: z.string().min(1).max(300) }), request.query, "query").filename;
      const format = formatOf(filename);
      if (!format) throw unprocessable("Upload a .csv, .tsv, .jsonl (or .ndjson), .json or .parquet file");
      const declared = Number(request.headers["content-length"]);
      if (Number.isFinite(declared) && declared > config.maxBytes)
        throw new HttpError(413, { detail: `The file is larger than the limit of ${config.maxBytes} bytes` });
      let upload: UploadState;
      try {
        // No body at all (no content type: the parser never ran) is an empty file, refused below as one.
        const body = request.body instanceof Readable ? request.body : Readable.from([]);
        upload = await store.receive(body, { userId: user.id, filename, format }, config.maxBytes);
      } catch (error) {
        if (error instanceof UploadTooLarge) throw new HttpError(413, { detail: error.message });
        throw error;
      }
      const rows: FileRow[] = [];
      try {
        for await (const row of readRows(store.dataPath(upload.id), format, config)) {
          rows.push(row);
          if (rows.length >= PREVIEW_ROWS) break;
        }
      } catch (error) {
        await store.remove(upload.id);
        if (error instanceof FileFormatError) throw unprocessable(error.message);
        throw error;
      }
      if (rows.length === 0) {
        await store.remove(upload.id);
        throw unprocessable("The file has no rows");
      }
      await store.keep(upload.id);
      return reply.status(201).send({ ...publicState(upload), columns: inferColumns(format, rows), preview: rows.map((r) => r.values) });
    });
  });

  app.get("/api/v1/uploads/:upload_id", async (request) => {
    const user = await ctx.currentUser(request);
    requireAdmin(user);
    return publicState(await uploadOf(request, user));
  });

  app.post("/api/v1/uploads/:upload_id/import", async (request, reply) => {
    const user = await ctx.currentUser(request);
    requireAdmin(user);
    const body = parse(ImportBody, request.body);
    const dataset = await datasetFor(ctx.db, user, body.dataset_id, "admin");
    const upload = await uploadOf(request, user);
    if (dataset.status !== "ready") throw unprocessable("It is not possible to import records to a non published dataset");
    if (upload.status !== "uploaded") throw unprocessable("This file was imported already; upload it again");
    const mapped = [...Object.values(body.mapping).flatMap((v) => (Array.isArray(v) ? v.map((p) => p.source) : v ? [v] : []))];
    if (mapped.length === 0) throw unprocessable("Map at least one column");
    const state = await store.update(upload.id, (s) => {
      s.status = "queued";
      s.dataset_id = dataset.id;
      s.mapping = body.mapping;
    });
    await ctx.jobs.enqueue(FILE_IMPORT_JOB, { upload_id: upload.id } satisfies FileImportPayload, { maxAttempts: 3 });
    return reply.status(202).send(publicState(state!));
  });

  app.post("/api/v1/uploads/:upload_id/cancel", async (request) => {
    const user = await ctx.currentUser(request);
    requireAdmin(user);
    const upload = await uploadOf(request, user);
    const state = await store.requestCancel(upload.id);
    if (!state) throw notFound("Upload not found");
    return publicState(state);
  });

  app.get("/api/v1/uploads/:upload_id/failures", async (request, reply) => {
    const user = await ctx.currentUser(request);
    requireAdmin(user);
    const upload = await uploadOf(request, user);
    async function* csv() {
      yield stringify([["row", "column", "message"]]);
      for await (const f of store.failures(upload.id)) yield stringify([[f.row, f.column ?? "", f.message]]);
    }
    const name = upload.filename.replace(/[^\w.-]+/g, "_");
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="${name}.failed-rows.csv"`)
      .send(Readable.from(csv()));
  });
}
