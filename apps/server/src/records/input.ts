import { z } from "zod";
import { parse } from "../http/errors.js";

/** Request body schemas of contract 3.9-3.12 (unknown keys are ignored; shape errors become the legacy 422). */
const uuid = z.string().uuid({ message: "Input should be a valid UUID" });
const unitScore = z.number().min(0).max(1);

export const agentSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?=.*[a-zA-Z0-9])[a-zA-Z0-9\-_:./\s]+$/, {
    message: "String should match pattern '^(?=.*[a-zA-Z0-9])[a-zA-Z0-9-_:\\.\\/\\s]+$'",
  });

export const suggestionCreateSchema = z
  .object({
    question_id: uuid.optional(),
    /** Not in the HTTP contract (the SDK sends it alongside question_id); used when question_id is absent, e.g. by the Hub import. */
    question_name: z.string().optional(),
    type: z.enum(["model", "human"]).nullable().optional(),
    value: z.unknown(),
    agent: agentSchema.nullable().optional(),
    score: z
      .union([unitScore, z.array(unitScore).min(1)])
      .nullable()
      .optional(),
  })
  .refine((s) => s.question_id !== undefined || s.question_name !== undefined, { message: "Field required", path: ["question_id"] })
  .refine((s) => s.value !== undefined, { message: "Field required", path: ["value"] });
export type SuggestionCreate = z.infer<typeof suggestionCreateSchema>;

const responseStatus = z.enum(["submitted", "discarded", "draft"]);
export const responseValuesSchema = z.record(z.string(), z.unknown());

export const recordResponseSchema = z
  .object({
    user_id: uuid,
    status: responseStatus,
    values: responseValuesSchema.nullable().optional(),
  })
  .refine((r) => r.status === "discarded" || (r.values !== undefined && r.values !== null), {
    message: "values are required for draft and submitted responses",
    path: ["values"],
  });

export const vectorsSchema = z.record(z.string(), z.array(z.number()).nullable());

export const recordItemSchema = z.object({
  id: uuid.nullable().optional(),
  fields: z.record(z.string(), z.unknown()).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  external_id: z
    .union([z.string(), z.number().transform((n) => String(n))])
    .nullable()
    .optional(),
  responses: z.array(recordResponseSchema).nullable().optional(),
  suggestions: z.array(suggestionCreateSchema).nullable().optional(),
  vectors: vectorsSchema.nullable().optional(),
});
export type RecordItem = z.infer<typeof recordItemSchema>;

export const MAX_RECORDS_PER_BULK = 500;

const externalIdsUnique = (items: RecordItem[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  for (const item of items) {
    if (item.external_id === null || item.external_id === undefined) continue;
    if (seen.has(item.external_id)) {
      ctx.addIssue({ code: "custom", message: "External IDs must be unique", path: ["items"] });
      return;
    }
    seen.add(item.external_id);
  }
};

export const recordsBulkSchema = z
  .object({
    items: z.array(recordItemSchema).min(1).max(MAX_RECORDS_PER_BULK),
  })
  .superRefine((body, ctx) => externalIdsUnique(body.items, ctx));

export const responseUpsertSchema = z
  .object({
    status: responseStatus,
    values: responseValuesSchema.nullable().optional(),
  })
  .refine((r) => r.status !== "submitted" || (r.values !== undefined && r.values !== null), {
    message: "Field required",
    path: ["values"],
  });

export const responsesBulkSchema = z.object({
  items: z
    .array(
      z.object({
        record_id: uuid,
        status: responseStatus,
        values: responseValuesSchema.nullable().optional(),
      }),
    )
    .min(1)
    .max(100),
});

export const recordUpdateSchema = z.object({
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  suggestions: z.array(suggestionCreateSchema).nullable().optional(),
  vectors: vectorsSchema.nullable().optional(),
});
export type RecordUpdate = z.infer<typeof recordUpdateSchema>;

/**
 * The bulk body as `recordsBulkSchema` parses it, about 4x cheaper for items with vectors: the vector
 * values (hundreds of numbers per record) are checked in one loop instead of one zod check per number.
 * Whenever that check or the rest fails, the full schema parses the body, so errors are identical.
 */
const recordsBulkFastSchema = z
  .object({
    items: z
      .array(recordItemSchema.extend({ vectors: z.record(z.string(), z.unknown()).nullable().optional() }))
      .min(1)
      .max(MAX_RECORDS_PER_BULK),
  })
  .superRefine((body, ctx) => externalIdsUnique(body.items as RecordItem[], ctx));

const isNumberList = (value: unknown): boolean => {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const n: unknown = value[i];
    if (typeof n !== "number" || !Number.isFinite(n)) return false;
  }
  return true;
};
const vectorsValid = (vectors: Record<string, unknown> | null | undefined): boolean =>
  !vectors || Object.values(vectors).every((v) => v === null || isNumberList(v));

export function parseRecordsBulk(body: unknown): z.infer<typeof recordsBulkSchema> {
  const fast = recordsBulkFastSchema.safeParse(body);
  if (fast.success && fast.data.items.every((item) => vectorsValid(item.vectors))) return fast.data as z.infer<typeof recordsBulkSchema>;
  return parse(recordsBulkSchema, body);
}
