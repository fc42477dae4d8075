import { z } from "zod";

/** Body of `POST /api/v1/datasets/{id}/import` (contract 3.15); unknown keys are ignored. */
const columnMapping = z.object({ source: z.string().min(1), target: z.string().min(1) });

export const hubMappingSchema = z.object({
  fields: z.array(columnMapping).min(1),
  metadata: z.array(columnMapping).default([]),
  suggestions: z.array(columnMapping).default([]),
  external_id: z.string().min(1).nullable().optional(),
});
export type HubMapping = z.infer<typeof hubMappingSchema>;

export const hubImportBodySchema = z.object({
  name: z.string().min(1),
  subset: z.string().min(1),
  split: z.string().min(1),
  mapping: hubMappingSchema,
});
export type HubImportBody = z.infer<typeof hubImportBodySchema>;

/** The columns the import reads: every mapping source and the external id column. */
export function mappedColumns(mapping: HubMapping): string[] {
  const columns = [...mapping.fields, ...mapping.metadata, ...mapping.suggestions].map((m) => m.source);
  if (mapping.external_id) columns.push(mapping.external_id);
  return [...new Set(columns)];
}
