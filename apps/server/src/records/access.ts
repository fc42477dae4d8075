import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { requireAdminMember, requireMember } from "../auth/policies.js";
import { notFound, parse, unprocessable, uuidParam, validationError } from "../http/errors.js";
import type { DatasetRow } from "./dataset-schema.js";
import type { Include, RecordRow } from "./read.js";

/** Shared request helpers of the records, responses, suggestions, search and progress routes. */
export function uuidPath<K extends string>(request: FastifyRequest, name: K): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  return parse(uuidPathSchema(name), params, "path")[name] as string;
}

/** One schema per parameter name: building a zod object per request cost ~0.2 ms of CPU per call (a 1M similarity call's profile). */
const uuidPathSchemas = new Map<string, z.ZodType<Record<string, string>>>();
function uuidPathSchema(name: string): z.ZodType<Record<string, string>> {
  let schema = uuidPathSchemas.get(name);
  if (!schema) uuidPathSchemas.set(name, (schema = z.object({ [name]: uuidParam }) as z.ZodType<Record<string, string>>));
  return schema;
}

export async function recordFor(
  db: Kysely<DB>,
  user: UserRow,
  recordId: string,
  access: "read" | "admin",
): Promise<{ record: RecordRow; dataset: DatasetRow }> {
  const record = await db.selectFrom("records").selectAll().where("id", "=", recordId).executeTakeFirst();
  if (!record) throw notFound(`Record with id \`${recordId}\` not found`);
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", record.dataset_id).executeTakeFirstOrThrow();
  if (access === "read") await requireMember(db, user, dataset.workspace_id);
  else await requireAdminMember(db, user, dataset.workspace_id);
  return { record, dataset };
}

const listOf = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** `include` query values (contract 3.10): responses, suggestions, vectors, vectors:a,b (repeatable). */
export function parseInclude(query: unknown): Include {
  const raw = listOf((query as Record<string, unknown> | null)?.include);
  const include: Include = { responses: false, suggestions: false, vectors: null };
  let allVectors = false;
  let named: string[] | null = null;
  raw.forEach((value, index) => {
    for (const part of typeof value === "string" ? [value] : [String(value)]) {
      if (part === "responses") include.responses = true;
      else if (part === "suggestions") include.suggestions = true;
      else if (part === "vectors") allVectors = true;
      else if (part.startsWith("vectors:"))
        named = [
          ...(named ?? []),
          ...part
            .slice(8)
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s.length > 0),
        ];
      else
        throw validationError([
          {
            type: "value_error",
            loc: ["query", "include", index],
            msg: `Value error, Invalid include value: ${part}. Expected one of responses, suggestions, vectors or vectors:<name1>,<name2>`,
          },
        ]);
    }
  });
  if (allVectors && named) throw unprocessable("Cannot include both 'vectors' and 'vectors:<name>' at the same time");
  include.vectors = allVectors ? "all" : named;
  return include;
}

export const pagingSchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});

export function parsePaging(query: unknown): { offset: number; limit: number } {
  const q = (query ?? {}) as Record<string, unknown>;
  const single = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
  return parse(pagingSchema, { offset: single(q.offset), limit: single(q.limit) }, "query");
}

/** `ids=<uuid>,<uuid>` (comma separated, possibly repeated) for the delete-many routes. */
export function parseIdList(query: unknown, noneMessage: string, tooManyMessage: string, max = 100): string[] {
  const raw = listOf((query as Record<string, unknown> | null)?.ids)
    .flatMap((v) => String(v).split(","))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (raw.length === 0) throw unprocessable(noneMessage);
  const ids = [...new Set(raw)];
  if (ids.length > max) throw unprocessable(tooManyMessage);
  return parse(z.array(uuidParam), ids, "query");
}
