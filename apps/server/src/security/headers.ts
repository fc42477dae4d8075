import type { FastifyReply, FastifyRequest } from "fastify";
import type { SecurityConfig } from "./config.js";

/**
 * The web app's Content-Security-Policy. No inline script and no eval (`script-src 'self'`); styles
 * may be inline (React style props, component libraries); dataset images and media may come from any
 * https: host or data: URLs; custom fields render in a sandboxed frame served by this origin
 * (`/frames/custom-field.html`, its own stricter-origin policy below).
 */
export function appCsp(frameAncestors: string[], connectSources: string[] = []): string {
  const extra = connectSources.map((o) => ` ${o}`).join("");
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' https: data: blob:${extra}`,
    "media-src 'self' https: data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${extra}`,
    "frame-src 'self'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    // Markdown may embed PDFs (<object data="data:application/pdf...">); data:/blob: documents get an opaque origin.
    "object-src 'self' data: blob: https:",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors.join(" ")}`,
  ].join("; ");
}

/** API answers are data, never documents: nothing may load from them and nobody may frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The custom-field frame: user templates (HTML and script) run here, in a unique opaque origin
 * (`sandbox allow-scripts` as a CSP directive, so even a top-level visit is sandboxed), with no
 * network access except images/media/fonts over https or data:.
 */
export const CUSTOM_FIELD_FRAME_CSP = [
  "sandbox allow-scripts",
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src https: data: blob:",
  "media-src https: data: blob:",
  "font-src https: data:",
  "frame-ancestors 'self'",
].join("; ");

export const PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()";

/** Adds the security headers to every answer (onSend). */
export function securityHeaders(config: SecurityConfig) {
  const csp = appCsp(config.frameAncestors, config.connectSources ?? []);
  const sameOriginOnly = config.frameAncestors.length === 1 && config.frameAncestors[0] === "'self'";
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    reply.header("X-Content-Type-Options", "nosniff");
    if (!reply.hasHeader("Content-Security-Policy")) {
      const type = String(reply.getHeader("content-type") ?? "");
      reply.header("Content-Security-Policy", type.startsWith("text/html") ? csp : API_CSP);
    }
    if (sameOriginOnly && !reply.hasHeader("X-Frame-Options")) reply.header("X-Frame-Options", "SAMEORIGIN");
    reply.header("Permissions-Policy", PERMISSIONS_POLICY);
    if (config.hstsMaxAgeSeconds > 0 && request.protocol === "https") {
      reply.header("Strict-Transport-Security", `max-age=${config.hstsMaxAgeSeconds}; includeSubDomains`);
    }
    return payload;
  };
}

/**
 * The bootstrap document of the custom-field frame. The parent posts `{tesseraDocument: html}`; the
 * frame replaces itself with it. Only the parent's first message counts.
 */
export const CUSTOM_FIELD_FRAME_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>custom field</title></head><body><script>
addEventListener("message",function(e){if(e.source!==parent||!e.data||typeof e.data.tesseraDocument!=="string")return;document.open();document.write(e.data.tesseraDocument);document.close();},{once:true});
parent.postMessage({tesseraFrameReady:true},"*");
</script></body></html>`;
