import { describe, expect, it } from "vitest";
import { CHAT_MAX_MESSAGES, fieldValueViolation, IMAGE_URL_MAX_LENGTH, type FieldRuleType } from "./field-value-rules.js";

const message = (role = "user", content = "hi") => ({ role, content });

describe("field value rules", () => {
  it.each<[FieldRuleType, unknown]>([
    ["text", "a text"],
    ["text", ""],
    ["image", "https://example.com/a.png"],
    ["image", "http://example.com/"],
    ["image", "data:image/png;base64,AAAA"],
    ["image", "data:IMAGE/JPEG;base64,AAAA"],
    ["chat", []],
    ["chat", [message(), message("assistant", "hello")]],
    ["custom", { any: "object" }],
  ])("accepts a %s value %j", (type, value) => {
    expect(fieldValueViolation(type, value)).toBeNull();
  });

  it.each<[FieldRuleType, unknown, string]>([
    ["text", 3, "field.wrongType"],
    ["text", ["a"], "field.wrongType"],
    ["image", 3, "field.wrongType"],
    ["image", "data:text/html;base64,AAAA", "image.badMimeType"],
    ["image", "data:,AAAA", "image.badMimeType"],
    ["image", `https://example.com/${"a".repeat(IMAGE_URL_MAX_LENGTH)}`, "image.urlTooLong"],
    ["image", "ftp://example.com/a.png", "image.badUrl"],
    ["image", "not a url", "image.badUrl"],
    ["image", "javascript:alert(1)", "image.badUrl"],
    ["chat", "hello", "field.wrongType"],
    ["chat", Array.from({ length: CHAT_MAX_MESSAGES + 1 }, () => message()), "chat.tooManyMessages"],
    ["chat", [{ role: "user" }], "chat.badMessage"],
    ["chat", ["hello"], "chat.badMessage"],
    ["chat", [message("")], "chat.badRole"],
    ["chat", [message("a user")], "chat.badRole"],
    ["chat", [message("r".repeat(21))], "chat.badRole"],
    ["chat", [message("user", "c".repeat(20_001))], "chat.contentTooLong"],
    ["custom", "text", "field.wrongType"],
    ["custom", [1], "field.wrongType"],
    ["custom", null, "field.wrongType"],
  ])("refuses a %s value %j (%s)", (type, value, kind) => {
    expect(fieldValueViolation(type, value)?.kind).toBe(kind);
  });

  it("says which chat message is wrong", () => {
    expect(fieldValueViolation("chat", [message(), message("", "x")])).toEqual({ kind: "chat.badRole", position: 1, max: 20 });
  });
});
