import DOMPurify from "dompurify";
import { describe, expect, it, vi } from "vitest";
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
    const html = renderMarkdown(
      `<object data="javascript:alert(1)"></object><embed src=" JavaScript:alert(2)"><object data="data:application/pdf;base64,JVBERi0="></object>`,
    );
    expect(html.toLowerCase()).not.toContain("javascript:");
    expect(html).toContain('data="data:application/pdf;base64,JVBERi0="');
  });
  it("renders a text again only once it has left the 16 last rendered (the guidelines shown with every record)", () => {
    const sanitize = vi.spyOn(DOMPurify, "sanitize");
    try {
      const guidelines = "Read **carefully** before answering.";
      const first = renderMarkdown(guidelines);
      expect(renderMarkdown(guidelines)).toBe(first);
      expect(sanitize).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 15; i++) renderMarkdown(`record ${i}`);
      renderMarkdown(guidelines); // still among the 16 last: refreshed, not rendered
      expect(sanitize).toHaveBeenCalledTimes(16);
      for (let i = 15; i < 31; i++) renderMarkdown(`record ${i}`);
      expect(renderMarkdown(guidelines)).toBe(first);
      expect(sanitize).toHaveBeenCalledTimes(33); // 16 + 16 new texts + the guidelines again
    } finally {
      sanitize.mockRestore();
    }
  });
});
