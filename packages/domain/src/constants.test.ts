import { describe, expect, it } from "vitest";
import { toastDuration, tooltipWidth, roundTo, DEFAULT_RATING_OPTIONS, BULK_CHUNK_SIZE, IMPORT_POLL_TRIES } from "./constants.js";
import {
  maxLengthMessage,
  MESSAGES,
  HTTP_STATUS_MESSAGES,
  BUSINESS_CODE_MESSAGES,
  UnknownQuestionTypeError,
  InvalidSettingsUpdateError,
} from "./messages.js";

describe("constants and messages", () => {
  it("toast duration is 6000 ms plus 1000 ms per 120 characters, rounded up", () => {
    expect(toastDuration("")).toBe(6000);
    expect(toastDuration("x")).toBe(7000);
    expect(toastDuration("x".repeat(120))).toBe(7000);
    expect(toastDuration("x".repeat(121))).toBe(8000);
  });
  it("tooltip width, rounding and limits", () => {
    expect(tooltipWidth("short")).toBe(100);
    expect(tooltipWidth("x".repeat(40))).toBe(400);
    expect(roundTo(12.345, 1)).toBe(12.3);
    expect(DEFAULT_RATING_OPTIONS).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([BULK_CHUNK_SIZE, IMPORT_POLL_TRIES]).toEqual([10, 10]);
  });
  it("messages carry the spec texts", () => {
    expect(maxLengthMessage(500).text).toBe("This must be less than 500.");
    expect(MESSAGES.wrongCredentials.text).toBe("Wrong username or password. Try again");
    expect(MESSAGES.spanUnsupported.text).toBe("Span annotation is not supported for your browser");
    expect(HTTP_STATUS_MESSAGES[429]?.text).toBe("Please wait a few seconds before trying again");
    expect(BUSINESS_CODE_MESSAGES["missing_vector"]?.text).toBe("Vector not found for the selected record");
    expect(new UnknownQuestionTypeError("x").message).toBe("Question answer for type x is not implemented yet.");
    expect(new InvalidSettingsUpdateError("Vector").message).toBe("Vector is not valid for update");
  });
});
