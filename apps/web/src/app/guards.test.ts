import { describe, expect, it } from "vitest";
import { routeGuard, type GuardInput } from "./guards";
import { redirectTarget, signInPathFor } from "../features/auth/redirect";

const base: GuardInput = { routeName: "index", fullPath: "/", loggedIn: false, hasQuery: false, onHostedSpace: false, omitCTA: false };

describe("route guard (spec section 2)", () => {
  it("sends a visitor to sign-in without redirect for '/'", () => {
    expect(routeGuard(base)).toBe("/sign-in");
  });
  it("remembers the full wanted path as redirect", () => {
    expect(routeGuard({ ...base, routeName: "dataset-settings", fullPath: "/dataset/1/settings?tab=x" })).toBe(
      "/sign-in?redirect=%2Fdataset%2F1%2Fsettings%3Ftab%3Dx",
    );
  });
  it("lets a logged-in user in and sends them away from sign-in", () => {
    expect(routeGuard({ ...base, loggedIn: true })).toBeNull();
    expect(routeGuard({ ...base, routeName: "sign-in", loggedIn: true })).toBe("/");
  });
  it("keeps the visitor on sign-in unless on the hosted space (omitCTA shows it as it is)", () => {
    expect(routeGuard({ ...base, routeName: "sign-in" })).toBeNull();
    expect(routeGuard({ ...base, routeName: "sign-in", onHostedSpace: true })).toBe("/welcome-hf-sign-in");
    expect(routeGuard({ ...base, routeName: "sign-in", onHostedSpace: true, omitCTA: true })).toBeNull();
  });
  it("handles the OAuth callback and the welcome page", () => {
    expect(routeGuard({ ...base, routeName: "oauth-provider-callback" })).toBe("/");
    expect(routeGuard({ ...base, routeName: "oauth-provider-callback", hasQuery: true })).toBeNull();
    expect(routeGuard({ ...base, routeName: "welcome-hf-sign-in" })).toBe("/");
    expect(routeGuard({ ...base, routeName: "welcome-hf-sign-in", onHostedSpace: true })).toBeNull();
    expect(routeGuard({ ...base, routeName: "welcome-hf-sign-in", onHostedSpace: true, loggedIn: true })).toBe("/");
  });
  it("honours only local redirect targets after login", () => {
    expect(redirectTarget(`?${signInPathFor("/dataset/1/annotation-mode").split("?")[1]}`)).toBe("/dataset/1/annotation-mode");
    expect(redirectTarget("?redirect=https://evil.example")).toBe("/");
    expect(redirectTarget("?redirect=//evil.example")).toBe("/");
    expect(redirectTarget("")).toBe("/");
  });
});
