import type { FastifyError, FastifyInstance } from "fastify";
import { z } from "zod";
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_MESSAGE,
  isDatabaseUnavailable,
  isPoolBusy,
  POOL_BUSY_MESSAGE,
  POOL_BUSY_RETRY_AFTER_SECONDS,
} from "../db/availability.js";

/**
 * The two error generations of the contract (section 2): flat `{"detail": "text"}` domain errors and
 * legacy `{"detail": {"code": "argilla.api.errors::X", "params": {...}}}` wrappers.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === "object" ? JSON.stringify(body) : String(body));
  }
}

const legacy = (name: string, params: unknown) => ({ detail: { code: `argilla.api.errors::${name}`, params } });

export const notFound = (message: string) => new HttpError(404, { detail: message });
export const conflict = (message: string) => new HttpError(409, { detail: message });
export const unprocessable = (message: string) => new HttpError(422, { detail: message });
export const businessError = (code: string, message: string) => new HttpError(422, { code, message });
export const unauthorized = (detail = "Could not validate credentials") => new HttpError(401, legacy("UnauthorizedError", { detail }));
export const forbidden = () => new HttpError(403, legacy("ForbiddenOperationError", { detail: "Operation not allowed" }));
export const badRequest = (message: string) => new HttpError(400, legacy("BadRequestError", { message }));

export interface ValidationItem {
  type: string;
  loc: (string | number)[];
  msg: string;
}
export const validationError = (errors: ValidationItem[]) => new HttpError(422, legacy("ValidationError", { errors }));

/** Parses `input` with `schema`; on failure throws the legacy 422 ValidationError with locations under `where`. */
export function parse<T extends z.ZodType>(schema: T, input: unknown, where: "body" | "query" | "path" = "body"): z.infer<T> {
  const result = schema.safeParse(input ?? (where === "body" ? undefined : {}));
  if (result.success) return result.data;
  throw validationError(
    result.error.issues.map((issue) => ({
      // A pattern mismatch carries pydantic's type, as the Argilla server answers it.
      type: issue.code === "invalid_format" && issue.format === "regex" ? "string_pattern_mismatch" : issue.code,
      loc: [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
      msg: issue.message,
    })),
  );
}

export const uuidParam = z.string().uuid({ message: "Input should be a valid UUID" });

/**
 * Installs the error handler: our HttpErrors pass through; framework errors become clear 4xx; a database
 * outage is a 503 with Retry-After (db/availability.ts); nothing leaks a stack.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) return reply.status(error.status).send(error.body);
    const status = error.statusCode ?? 500;
    if (
      error.code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
      error.code === "FST_ERR_CTP_EMPTY_JSON_BODY" ||
      (error instanceof SyntaxError && status === 400)
    ) {
      return reply.status(422).send(
        legacy("ValidationError", {
          errors: [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error: the request body is not valid JSON" }],
        }),
      );
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return reply.status(413).send({ detail: "Request body is too large" });
    }
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return reply.status(415).send({ detail: `Unsupported media type: ${request.headers["content-type"] ?? "none"}` });
    }
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ detail: error.message });
    }
    if (isPoolBusy(error)) {
      request.log.warn({ err: error }, "database pool busy");
      return reply.status(503).header("Retry-After", String(POOL_BUSY_RETRY_AFTER_SECONDS)).send({ detail: POOL_BUSY_MESSAGE });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, "database unavailable");
      return reply.status(503).header("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS)).send({ detail: DATABASE_UNAVAILABLE_MESSAGE });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply
      .status(500)
      .send(legacy("GenericServerError", { type: "InternalServerError", message: "An internal error occurred", args: [] }));
  });
}
