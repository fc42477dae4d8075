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
      if (node.tagName === "A") { node.setAttribute("target", "_blank"); node.setAttribute("rel", "noopener noreferrer"); }
      // `data` is URI-safe for DOMPurify (so PDFs can be embedded as data: URLs): allow only data:, blob: and http(s) URLs there.
      if ((node.tagName === "OBJECT" || node.tagName === "EMBED") && /^\s*(?!data:|blob:|https?:)[\w+.-]+:/i.test(node.getAttribute("data") ?? node.getAttribute("src") ?? "")) {
        node.removeAttribute("data"); node.removeAttribute("src");
      }
      if (node.tagName === "svg" && !node.getAttribute("viewBox")) {
        const w = node.getAttribute("width"), h = node.getAttribute("height");
        if (w && h) node.setAttribute("viewBox", `0 0 ${parseFloat(w)} ${parseFloat(h)}`);
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

/** Markdown to sanitized HTML (marked + highlight.js, then DOMPurify). Trailing spaces are stripped first. */
export function renderMarkdown(text: string): string {
  const source = text.replace(/[ \t]+$/gm, "");
  const html = marked.parse(source, { async: false });
  return purifier().sanitize(html, { ADD_TAGS: ["embed", "object"], ADD_ATTR: ["data", "target"], ADD_URI_SAFE_ATTR: ["data"] });
}

/** Plain text to sanitized HTML is never needed: plain text is rendered as text nodes by React. */
