import { describe, expect, it } from "vitest";
import { buildCustomFieldDocument } from "./custom-template";

const record = { id: "r1", fields: { text: "<b>hi</b>", obj: { a: 1 } }, metadata: {} };

describe("custom field template", () => {
  it("fills placeholders HTML-escaped in basic mode and injects the record safely", () => {
    const doc = buildCustomFieldDocument("<p>{{record.fields.text}}</p><pre>{{json record.fields.obj}}</pre>", record, false, "f");
    expect(doc).toContain("<p>&lt;b&gt;hi&lt;/b&gt;</p>");
    expect(doc).toContain("{&quot;a&quot;:1}");
    expect(doc).toContain('const record = {"id":"r1","fields":{"text":"\\u003cb>hi\\u003c/b>"');
  });
  it("keeps the template as is in advanced mode", () => {
    expect(buildCustomFieldDocument("<div>{{record.id}}</div>", record, true, "f")).toContain("<div>{{record.id}}</div>");
  });
});
