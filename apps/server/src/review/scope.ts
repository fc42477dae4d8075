import type { Kysely } from "kysely";
import { z } from "zod";
import { mayReview } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/database.js";
import type { UserRow } from "../auth/authenticate.js";
import { datasetFor } from "../auth/policies.js";
import { forbidden, unprocessable, uuidParam } from "../http/errors.js";
import { loadDatasetSchema, type DatasetRow, type DatasetSchema, type QuestionDef } from "../records/dataset-schema.js";
import type { SearchFilter } from "../search/search-port.js";
import { searchFor } from "../search/for-store.js";

/**
 * What the agreement and review endpoints read (issue 22): the annotation page's record filters
 * (metadata terms/ranges, record status; the contract's filter shape of section 4), chosen
 * annotators and an optional question, by name.
 */
const MetadataScope = z.object({ entity: z.literal("metadata"), metadata_property: z.string().min(1) });
const StatusScope = z.object({ entity: z.literal("record"), property: z.literal("status") });
const Scope = z.union([MetadataScope, StatusScope]);
const bound = z.union([z.number(), z.string()]).nullable().optional();
const Filter = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("terms"),
    scope: Scope,
    values: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(1)
      .max(250),
  }),
  z
    .object({ type: z.literal("range"), scope: MetadataScope, ge: bound, le: bound })
    .refine((f) => (f.ge ?? null) !== null || (f.le ?? null) !== null, {
      message: "Value error, at least one of 'ge' or 'le' must be provided",
    }),
]);

export const ScopeBody = z.object({
  question: z.string().min(1).nullable().optional(),
  user_ids: z.array(uuidParam).max(100).nullable().optional(),
  filters: z
    .object({ and: z.array(Filter).min(1).max(50) })
    .nullable()
    .optional(),
});
export type ScopeIn = z.infer<typeof ScopeBody>;

export interface ReviewScope {
  dataset: DatasetRow;
  schema: DatasetSchema;
  /** The one question asked for, else null (every question). */
  question: QuestionDef | null;
  /** Records matching the filters, or null when no filter is given (every record). */
  recordIds: Set<string> | null;
  /** Chosen annotators, or null (everyone). */
  userIds: Set<string> | null;
}

/** Only owners and admins of the dataset's workspace review (domain rule `mayReview`, then workspace membership); 403 otherwise. */
export async function reviewDataset(db: Kysely<DB>, user: UserRow, datasetId: string): Promise<DatasetRow> {
  if (!mayReview(user.role)) throw forbidden();
  return datasetFor(db, user, datasetId, "admin");
}

export function questionNamed(schema: DatasetSchema, name: string): QuestionDef {
  const question = schema.questionByName.get(name);
  if (!question) throw unprocessable(`Question \`${name}\` not found in dataset \`${schema.dataset.id}\``);
  return question;
}

/** Resolves a scope body: unknown question or metadata property is a 422 naming it. */
export async function resolveScope(store: Store, dataset: DatasetRow, body: ScopeIn): Promise<ReviewScope> {
  const schema = await loadDatasetSchema(store.db, dataset);
  const question = body.question ? questionNamed(schema, body.question) : null;
  let recordIds: Set<string> | null = null;
  if (body.filters) {
    const filters: SearchFilter[] = body.filters.and.map((f) => {
      const scope =
        f.scope.entity === "record"
          ? { entity: "record" as const, property: "status" as const }
          : { entity: "metadata" as const, name: f.scope.metadata_property };
      if (scope.entity === "metadata" && !schema.metadataByName.has(scope.name))
        throw unprocessable(`MetadataProperty not found filtering by name=${scope.name}, dataset_id=${dataset.id}`);
      return f.type === "terms" ? { type: "terms", scope, values: f.values } : { type: "range", scope, ge: f.ge ?? null, le: f.le ?? null };
    });
    const result = await searchFor(store).search({
      datasetId: dataset.id,
      userId: null,
      text: null,
      vector: null,
      filters,
      sort: [],
      offset: 0,
      limit: 100_000_000,
    });
    recordIds = new Set(result.hits.map((h) => h.recordId));
  }
  const userIds = body.user_ids && body.user_ids.length > 0 ? new Set(body.user_ids) : null;
  return { dataset, schema, question, recordIds, userIds };
}
