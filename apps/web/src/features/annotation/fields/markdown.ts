import { Marked, type Tokens } from "marked";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import javascript from "highlight.js/lib/languages/javascript";
import typescript from "highlight.js/lib/languages/typescript";
import python from "highlight.js/lib/languages/python";
import json from "highlight.js/lib/languages/json";
import bash from "highlight.js/lib/languages/bash";
import xml from "highlight.js/lib/languages/xml";
import sql from "highlight.js/lib/languages/sql";

hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("typescript", typescript);
hljs.registerLanguage("python", python);
hljs.registerLanguage("json", json);
hljs.registerLanguage("bash", bash);
hljs.registerLanguage("xml", xml);
hljs.registerLanguage("sql", sql);

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const marked = new Marked({
  breaks: true,
  gfm: true,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = lang && hljs.getLanguage(lang) ? lang : null;
      const html = language ? hljs.highlight(text, { language }).value : escapeHtml(text);
      return `<pre><code class="hljs${language ? ` language-${language}` : ""}">${html}</code></pre>`;
    },
  },
});

let hooked = false;
function purifier() {
  if (!hooked) {
    // Links open in a new tab; SVGs with only width/height get a viewBox so they scale.
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A") {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
      // `data` is URI-safe for DOMPurify (so PDFs can be embedded as data: URLs): allow only data:, blob: and http(s) URLs there.
      if (
        (node.tagName === "OBJECT" || node.tagName === "EMBED") &&
        /^\s*(?!data:|blob:|https?:)[\w+.-]+:/i.test(node.getAttribute("data") ?? node.getAttribute("src") ?? "")
      ) {
        node.removeAttribute("data");
        node.removeAttribute("src");
      }
      if (node.tagName === "svg" && !node.getAttribute("viewBox")) {
        const w = node.getAttribute("width"),
          h = node.getAttribute("height");
        if (w && h) node.setAttribute("viewBox", `0 0 ${parseFloat(w)} ${parseFloat(h)}`);
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

/**
 * The last texts rendered (least recently used first): the guidelines and the question descriptions
 * are rendered again with every record shown, and parsing them each time cost CPU per record and kept
 * V8 compiling marked's regular expressions to machine code long after the first records.
 */
const rendered = new Map<string, string>();
const RENDERED_KEPT = 16;

/** Markdown to sanitized HTML (marked + highlight.js, then DOMPurify). Trailing spaces are stripped first. */
export function renderMarkdown(text: string): string {
  const cached = rendered.get(text);
  if (cached !== undefined) {
    rendered.delete(text);
    rendered.set(text, cached);
    return cached;
  }
  const source = text.replace(/[ \t]+$/gm, "");
  const html = marked.parse(source, { async: false });
  const safe = purifier().sanitize(html, { ADD_TAGS: ["embed", "object"], ADD_ATTR: ["data", "target"], ADD_URI_SAFE_ATTR: ["data"] });
  rendered.set(text, safe);
  if (rendered.size > RENDERED_KEPT) rendered.delete(rendered.keys().next().value!);
  return safe;
}

/** Plain text to sanitized HTML is never needed: plain text is rendered as text nodes by React. */
