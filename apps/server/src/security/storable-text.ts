import type { FastifyInstance } from "fastify";
import { validationError } from "../http/errors.js";

/**
 * Text that a store cannot keep (issue 28, finding 5; issue 21, point 3): PostgreSQL refuses the NUL
 * character (U+0000) in text and JSON ("invalid byte sequence for encoding UTF8: 0x00") and unpaired
 * UTF-16 surrogates in JSON ("Unicode low surrogate must follow a high surrogate"), so such a string
 * in any request (a filter value, a name, a title, a username, a record field, an upload's file name)
 * answered 500 there. The rule, one for both stores (data stays portable between them): no request
 * may carry such text anywhere in its path, query or body (422 naming where), and no imported row may
 * either (records/ingest.ts refuses the item). Other control characters are stored as sent; names
 * refuse them by their own rules (settings/common.ts).
 */
export const UNSTORABLE_TEXT_MESSAGE = "Text must not contain the NUL character (U+0000) or unpaired surrogates";

// A NUL or any surrogate code unit: the exact pairing check runs only when one is found.
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** Whether `text` has a NUL character or an unpaired surrogate. */
export function isUnstorableText(text: string): boolean {
  if (!SUSPECT.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Where in `value` (a parsed JSON value) the first unstorable text is, as a path of keys; null when nowhere. Keys count too. */
export function findUnstorableText(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return isUnstorableText(value) ? path : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "number") continue; // vectors: the common case, no call
      const found = findUnstorableText(item, [...path, i]);
      if (found) return found;
    }
    return null;
  }
  // Parsed JSON, forms and query strings only (their objects have Object.prototype, no prototype, or an
  // empty one without a prototype, as fast-querystring's); a route that streams its body has no text to check here.
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null && proto !== Object.prototype && Object.getPrototypeOf(proto) !== null) return null;
  for (const key of Object.keys(value)) {
    if (isUnstorableText(key)) return [...path, key];
    const found = findUnstorableText((value as Record<string, unknown>)[key], [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * The bulk record routes' bodies are checked item by item by the records module (records/ingest.ts,
 * the check file and Hub imports need anyway: ``Record at position N is not valid because ...``), without
 * walking the vectors that make most of such a body: their bodies are not walked twice here.
 */
const checkedByRecordsModule = (url: string | undefined): boolean => url !== undefined && url.endsWith("/records/bulk");

/** Answers a request that carries unstorable text in its path, query or (parsed) body with the legacy 422, before any route runs. */
export function installStorableTextCheck(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const where: [string, unknown][] = [
      ["path", request.params],
      ["query", request.query],
    ];
    if (!checkedByRecordsModule(request.routeOptions.url)) where.push(["body", request.body]);
    for (const [name, value] of where) {
      const found = findUnstorableText(value);
      if (found) throw validationError([{ type: "string_unstorable_character", loc: [name, ...found], msg: UNSTORABLE_TEXT_MESSAGE }]);
    }
  });
}
