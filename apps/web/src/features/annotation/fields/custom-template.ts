/** The record as seen by a custom field template. */
export interface TemplateRecord {
  id: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

function lookup(path: string, scope: Record<string, unknown>): unknown {
  return path
    .split(".")
    .reduce<unknown>((value, key) => (value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined), scope);
}

/**
 * Basic mode: `{{record.fields.x}}` placeholders (HTML-escaped; objects as JSON) and `{{json x}}`.
 * Advanced mode: the template as is, with the `record` global. Either way the result runs only in
 * a sandboxed iframe (allow-scripts without allow-same-origin), which reports its height through
 * postMessage.
 */
export function buildCustomFieldDocument(template: string, record: TemplateRecord, advanced: boolean, frameId: string): string {
  const body = advanced
    ? template
    : template.replace(/\{\{\s*(json\s+)?([\w.]+)\s*\}\}/g, (_, json: string | undefined, path: string) => {
        const value = lookup(path, { record });
        if (json || (value !== null && typeof value === "object")) return escapeHtml(JSON.stringify(value ?? null));
        return escapeHtml(value === undefined || value === null ? "" : String(value));
      });
  const data = JSON.stringify(record).replace(/</g, "\\u003c");
  const resize = `<script>(function(){function s(){parent.postMessage({tesseraFrame:${JSON.stringify(frameId)},height:document.documentElement.scrollHeight},"*")}addEventListener("load",s);new ResizeObserver(s).observe(document.documentElement)})()</script>`;
  return `<!doctype html><html><head><meta charset="utf-8"><script>const record = ${data};</script></head><body>${body}${resize}</body></html>`;
}
