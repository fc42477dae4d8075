import { describe, expect, it } from "vitest";
import { hubViewerOrigin, loadSecurityConfig } from "./config.js";
import { appCsp } from "./headers.js";

describe("CSP for the Hub dataset viewer (dataset creation reads it from the browser)", () => {
  it("allows connect-src and img-src to the configured viewer origin only", () => {
    expect(hubViewerOrigin({})).toEqual(["https://datasets-server.huggingface.co"]);
    expect(hubViewerOrigin({ TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:6901/" })).toEqual(["http://127.0.0.1:6901"]);
    expect(hubViewerOrigin({ TESSERA_HUB_DATASETS_SERVER_URL: "javascript:alert(1)" })).toEqual([]);
    expect(hubViewerOrigin({ TESSERA_HUB_DATASETS_SERVER_URL: "not a url" })).toEqual([]);
    const config = loadSecurityConfig({ TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:6901" });
    const csp = appCsp(config.frameAncestors, config.connectSources);
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:6901;");
    expect(csp).toContain("img-src 'self' https: data: blob: http://127.0.0.1:6901;");
    expect(appCsp(["'self'"])).toContain("connect-src 'self';");
  });
});
