import { z } from "zod";

/**
 * Field settings (contract 3.5). The create schemas fill the defaults, so their output is exactly the
 * stored/returned wire shape kept in `fields.settings`.
 */
export const FIELD_TYPES = ["text", "image", "chat", "custom"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const TextFieldSettingsSchema = z.object({ type: z.literal("text"), use_markdown: z.boolean().default(false) });
export const ImageFieldSettingsSchema = z.object({ type: z.literal("image") });
export const ChatFieldSettingsSchema = z.object({ type: z.literal("chat"), use_markdown: z.boolean().default(true) });
export const CustomFieldSettingsSchema = z.object({
  type: z.literal("custom"),
  template: z.string().max(1_000_000),
  advanced_mode: z.boolean().default(false),
});

export const FieldSettingsCreateSchema = z.discriminatedUnion("type", [
  TextFieldSettingsSchema,
  ImageFieldSettingsSchema,
  ChatFieldSettingsSchema,
  CustomFieldSettingsSchema,
]);
/** The stored/returned shape of field settings. */
export type FieldSettings = z.infer<typeof FieldSettingsCreateSchema>;
export type TextFieldSettings = z.infer<typeof TextFieldSettingsSchema>;
export type ChatFieldSettings = z.infer<typeof ChatFieldSettingsSchema>;
export type CustomFieldSettings = z.infer<typeof CustomFieldSettingsSchema>;

/** PATCH /fields/{id} settings: text/chat need `use_markdown`, custom needs `template` and `advanced_mode`. */
export const FieldSettingsUpdateSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), use_markdown: z.boolean() }),
  z.object({ type: z.literal("image") }),
  z.object({ type: z.literal("chat"), use_markdown: z.boolean() }),
  z.object({ type: z.literal("custom"), template: z.string().max(1_000_000), advanced_mode: z.boolean() }),
]);
export type FieldSettingsUpdate = z.infer<typeof FieldSettingsUpdateSchema>;
