import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

describe("renderMarkdown", () => {
  it("renders markdown and highlights code blocks", () => {
    const html = renderMarkdown("# Title\n\n**bold**\n\n```python\ndef f(): return 1\n```");
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain('class="hljs-keyword"');
  });
  it("removes scripts and event handlers, and opens links in a new tab", () => {
    const html = renderMarkdown('<script>alert(1)</script><img src=x onerror="alert(2)">\n\n[a](https://example.com)');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("onerror");
    expect(html).toContain('target="_blank"');
  });
  it("keeps javascript: out of object/embed (data is URI-safe for embedded PDFs), and keeps data: PDFs", () => {
    const html = renderMarkdown(`<object data="javascript:alert(1)"></object><embed src=" JavaScript:alert(2)"><object data="data:application/pdf;base64,JVBERi0="></object>`);
    expect(html.toLowerCase()).not.toContain("javascript:");
    expect(html).toContain('data="data:application/pdf;base64,JVBERi0="');
  });
});
