import { z } from "zod";

/**
 * Metadata property settings (contract 3.7), stored in `metadata_properties.settings` in this exact shape.
 * Terms `values` may hold any JSON values (the SDK sends strings).
 */
export const TERMS_MAX_VALUES = 250;

const minMax = <T extends z.ZodType<number>>(n: T) => z.object({ min: n.nullable().default(null), max: n.nullable().default(null) });

const checkMinMax = (s: { min: number | null; max: number | null }, ctx: z.RefinementCtx) => {
  if (s.min !== null && s.max !== null && s.min >= s.max) {
    ctx.addIssue({ code: "custom", message: `'min' (${s.min}) must be lower than 'max' (${s.max})`, path: [] });
  }
};

export const TermsMetadataSettingsSchema = z.object({
  type: z.literal("terms"),
  values: z.array(z.json()).min(1).max(TERMS_MAX_VALUES).nullable().default(null),
});
export const IntegerMetadataSettingsSchema = z
  .object({ type: z.literal("integer") })
  .extend(minMax(z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)).shape)
  .superRefine(checkMinMax);
export const FloatMetadataSettingsSchema = z
  .object({ type: z.literal("float") })
  .extend(minMax(z.number()).shape)
  .superRefine(checkMinMax);

export const MetadataSettingsSchema = z.discriminatedUnion("type", [
  TermsMetadataSettingsSchema,
  IntegerMetadataSettingsSchema,
  FloatMetadataSettingsSchema,
]);
export type MetadataSettings = z.infer<typeof MetadataSettingsSchema>;
export type MetadataType = MetadataSettings["type"];

export type MetadataRole = "admin" | "annotator";
export const allowedRolesFor = (visibleForAnnotators: boolean): MetadataRole[] =>
  visibleForAnnotators ? ["admin", "annotator"] : ["admin"];
