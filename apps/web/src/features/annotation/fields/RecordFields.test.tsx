import { describe, expect, it } from "vitest";
import { fireEvent, screen, within } from "@testing-library/react";
import type { FieldProps } from "@tessera/domain";
import { recordWith, renderWithI18n } from "../component-test-utils";
import { RecordFields } from "./RecordFields";

const field = (name: string, settings: FieldProps["settings"]): FieldProps => ({
  id: `f-${name}`,
  name,
  title: name.toUpperCase(),
  required: false,
  datasetId: "d",
  settings,
});

async function renderFields(fields: FieldProps[], values: { [name: string]: unknown }) {
  const { record, form } = recordWith([], fields, { fields: values });
  return renderWithI18n(<RecordFields record={record} form={form} />);
}

describe("RecordFields renderers", () => {
  it("chat: bubbles alternate sides with two roles, the role name shows only when it changes, markdown is sanitized", async () => {
    const view = await renderFields([field("chat", { type: "chat", use_markdown: true })], {
      chat: [
        { role: "user", content: "Hi **there**" },
        { role: "user", content: "Still me <img src=x onerror=alert(1)>" },
        { role: "assistant", content: "Hello" },
      ],
    });
    const bubbles = within(screen.getByRole("region", { name: "CHAT" })).getAllByRole("listitem");
    expect(bubbles.map((b) => b.getAttribute("data-role"))).toEqual(["user", "user", "assistant"]);
    expect(bubbles.map((b) => b.className.includes("--right"))).toEqual([true, true, false]);
    expect(bubbles.map((b) => b.querySelector(".chat__role")?.textContent ?? null)).toEqual(["user", null, "assistant"]);
    expect(bubbles[0]?.querySelector("strong")?.textContent).toBe("there");
    expect(view.container.querySelector("[onerror]")).toBeNull();
  });

  it("chat: a plain string is one user message; with more than two roles everything is left-aligned", async () => {
    await renderFields([field("a", { type: "chat" }), field("b", { type: "chat" })], {
      a: "just text",
      b: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "a" },
      ],
    });
    const a = within(screen.getByRole("region", { name: "A" })).getAllByRole("listitem");
    expect(a.map((m) => [m.getAttribute("data-role"), m.textContent])).toEqual([["user", "userjust text"]]);
    const b = within(screen.getByRole("region", { name: "B" })).getAllByRole("listitem");
    expect(b.every((m) => m.className.includes("--left"))).toBe(true);
  });

  it("image: a spinner until loaded; on error 'Could not load image'", async () => {
    await renderFields([field("image", { type: "image" }), field("ok", { type: "image" })], {
      image: { src: "http://img.test/missing.png" },
      ok: "data:image/png;base64,AAAA",
    });
    const broken = screen.getByRole("img", { name: "IMAGE" });
    expect(broken.getAttribute("src")).toBe("http://img.test/missing.png");
    expect(screen.getAllByRole("img").length).toBe(2);
    expect(document.querySelectorAll("[aria-busy=true]")).toHaveLength(2);
    fireEvent.error(broken);
    expect(screen.getByRole("alert").textContent).toBe("Could not load image");
    expect(screen.queryByRole("img", { name: "IMAGE" })).toBeNull();
    fireEvent.load(screen.getByRole("img", { name: "OK" }));
    expect(document.querySelectorAll("[aria-busy=true]")).toHaveLength(0);
  });

  it("custom: a sandboxed iframe (allow-scripts only, never allow-same-origin) on the server's frame page", async () => {
    await renderFields([field("custom", { type: "custom", template: "<b>{{record.fields.text}}</b>" }), field("text", { type: "text" })], {
      custom: { a: 1 },
      text: "hello",
    });
    const frame = screen.getByTitle("CUSTOM");
    expect(frame.tagName).toBe("IFRAME");
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame.getAttribute("sandbox")).not.toContain("allow-same-origin");
    // srcdoc would inherit the app's CSP; the frame page has its own (tools/e2e/src/xss.e2e.test.ts renders it in Chromium).
    expect(frame.getAttribute("src")).toBe("/frames/custom-field.html");
    expect(frame.hasAttribute("srcdoc")).toBe(false);
  });

  it("text: plain text is not interpreted as HTML; markdown is rendered and sanitized; empty fields are not rendered", async () => {
    const view = await renderFields(
      [field("plain", { type: "text" }), field("md", { type: "text", use_markdown: true }), field("missing", { type: "text" })],
      { plain: "<b>not bold</b>", md: "# Title\n<script>alert(1)</script>", missing: "" },
    );
    expect(screen.getByRole("region", { name: "PLAIN" }).querySelector("b")).toBeNull();
    expect(screen.getByText("<b>not bold</b>")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Title" })).toBeTruthy();
    expect(view.container.querySelector("script")).toBeNull();
    expect(screen.queryByRole("region", { name: "MISSING" })).toBeNull();
  });

  it("text: the copy button is an icon (no character a font may lack), copies the field's text and says 'Copied'", async () => {
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      configurable: true,
      value: { writeText: (text: string) => (written.push(text), Promise.resolve()) },
    });
    await renderFields([field("text", { type: "text" })], { text: "Plain review text" });
    const copy = within(screen.getByRole("region", { name: "TEXT" })).getByRole("button", { name: "Copy to clipboard" });
    expect(copy.querySelector("svg")).not.toBeNull();
    expect(copy.textContent).toBe("");
    fireEvent.click(copy);
    expect(await screen.findByRole("status")).toHaveProperty("textContent", "Copied");
    expect(written).toEqual(["Plain review text"]);
  });
});
