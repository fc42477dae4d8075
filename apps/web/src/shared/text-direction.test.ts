import { describe, expect, it } from "vitest";
import { isRightToLeft, textDirection } from "./text-direction";

describe("textDirection (spec section 1)", () => {
  it("is ltr for latin text, empty text and digits only", () => {
    expect(textDirection("Hello world")).toBe("ltr");
    expect(textDirection("")).toBe("ltr");
    expect(textDirection("12345 !?")).toBe("ltr");
  });
  it("is rtl for Arabic and Hebrew", () => {
    expect(textDirection("مرحبا بالعالم")).toBe("rtl");
    expect(isRightToLeft("שלום עולם")).toBe(true);
  });
  it("follows whichever script has more characters in mixed text", () => {
    expect(textDirection("مرحبا hi")).toBe("rtl");
    expect(textDirection("hello world مرحبا")).toBe("ltr");
    expect(textDirection("abc אב")).toBe("ltr");
    expect(textDirection("ab אבג")).toBe("rtl");
  });
});
