/**
 * Which record field values fit a field (contract 3.5 and 3.10, spec section 3), once for the whole
 * product: the server refuses a record whose fields break them (and words the violation as the
 * contract does). Pure: a violation is data; wording belongs to whoever shows it.
 */

export type FieldRuleType = "text" | "image" | "chat" | "custom";

/** MIME types an image field accepts in a data URL. */
export const IMAGE_MIME_TYPES: ReadonlySet<string> = new Set([
  "image/avif",
  "image/gif",
  "image/ico",
  "image/jpeg",
  "image/jpg",
  "image/png",
  "image/svg",
  "image/svg+xml",
  "image/webp",
]);
/** An image given as a data URL has at most this many characters. */
export const IMAGE_DATA_URL_MAX_LENGTH = 5_000_000;
/** An image given as an http(s) URL has at most this many characters. */
export const IMAGE_URL_MAX_LENGTH = 2038;
/** A chat field holds at most this many messages. */
export const CHAT_MAX_MESSAGES = 500;
/** A chat message's role: 1 to this many characters without whitespace. */
export const CHAT_ROLE_MAX_LENGTH = 20;
/** A chat message's content has at most this many characters. */
export const CHAT_CONTENT_MAX_LENGTH = 20_000;

export type FieldValueViolation =
  | { kind: "field.wrongType"; expected: "str" | "list" | "dict"; value: unknown }
  | { kind: "image.dataUrlTooLong"; max: number }
  | { kind: "image.badMimeType"; mime: string }
  | { kind: "image.urlTooLong"; max: number }
  | { kind: "image.badUrl" }
  | { kind: "chat.tooManyMessages"; count: number; max: number }
  | { kind: "chat.badMessage"; position: number }
  | { kind: "chat.badRole"; position: number; max: number }
  | { kind: "chat.contentTooLong"; position: number; max: number };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function imageViolation(value: unknown): FieldValueViolation | null {
  if (typeof value !== "string") return { kind: "field.wrongType", expected: "str", value };
  if (value.startsWith("data:")) {
    if (value.length > IMAGE_DATA_URL_MAX_LENGTH) return { kind: "image.dataUrlTooLong", max: IMAGE_DATA_URL_MAX_LENGTH };
    const mime = /^data:([^;,]+)/.exec(value)?.[1]?.toLowerCase();
    if (!mime || !IMAGE_MIME_TYPES.has(mime)) return { kind: "image.badMimeType", mime: mime ?? "" };
    return null;
  }
  if (value.length > IMAGE_URL_MAX_LENGTH) return { kind: "image.urlTooLong", max: IMAGE_URL_MAX_LENGTH };
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || !parsed.host || parsed.pathname.length === 0)
    return { kind: "image.badUrl" };
  return null;
}

function chatViolation(value: unknown): FieldValueViolation | null {
  if (!Array.isArray(value)) return { kind: "field.wrongType", expected: "list", value };
  if (value.length > CHAT_MAX_MESSAGES) return { kind: "chat.tooManyMessages", count: value.length, max: CHAT_MAX_MESSAGES };
  for (const [position, m] of value.entries()) {
    if (!isPlainObject(m) || typeof m.role !== "string" || typeof m.content !== "string") return { kind: "chat.badMessage", position };
    if (m.role.length < 1 || m.role.length > CHAT_ROLE_MAX_LENGTH || !/^\S+$/.test(m.role))
      return { kind: "chat.badRole", position, max: CHAT_ROLE_MAX_LENGTH };
    if (m.content.length > CHAT_CONTENT_MAX_LENGTH) return { kind: "chat.contentTooLong", position, max: CHAT_CONTENT_MAX_LENGTH };
  }
  return null;
}

/**
 * The first rule a (non-null) field value breaks, or null: text is a string; image an http(s) URL with a
 * host and a path, or a data URL of an image type, within the length limits; chat a list of messages
 * with a role and a content; custom an object.
 */
export function fieldValueViolation(type: FieldRuleType, value: unknown): FieldValueViolation | null {
  switch (type) {
    case "text":
      return typeof value === "string" ? null : { kind: "field.wrongType", expected: "str", value };
    case "image":
      return imageViolation(value);
    case "chat":
      return chatViolation(value);
    case "custom":
      return isPlainObject(value) ? null : { kind: "field.wrongType", expected: "dict", value };
  }
}
