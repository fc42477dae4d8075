import { describe, expect, it, vi } from "vitest";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { LoadOAuthProvidersUseCase, StartOAuthSignInUseCase, type OAuthRepository } from "@tessera/domain";
import { json, renderApp } from "../../app/test-app";
import { OAuthProvidersViewModel } from "./oauth-providers-view-model";
import type { BrowserNavigator } from "./browser-navigator";

const SPACE = {
  argilla: { show_huggingface_space_persistent_storage_warning: true },
  huggingface: {
    space_id: "team/annotate",
    space_title: "Annotate",
    space_subdomain: "team-annotate",
    space_host: "team-annotate.hf.space",
    space_repo_name: "annotate",
    space_author_name: "team",
    space_persistent_storage_enabled: true,
  },
};
const providers = (items: { name: string }[]) => (path: string) => (path === "/api/v1/oauth2/providers" ? json({ items }) : undefined);

describe("sign-in page with OAuth providers", () => {
  it("shows 'Sign in with Hugging Face' for a configured provider", async () => {
    await renderApp("/sign-in", { api: providers([{ name: "huggingface" }]) });
    expect(await screen.findByRole("button", { name: "Sign in with Hugging Face" })).toBeTruthy();
  });

  it("shows no provider button when loading the providers fails", async () => {
    await renderApp("/sign-in", { api: (p) => (p === "/api/v1/oauth2/providers" ? json({ detail: "down" }, 500) : undefined) });
    await screen.findByRole("button", { name: "Sign in" });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole("button", { name: /Hugging Face/ })).toBeNull();
  });
});

describe("OAuth callback page", () => {
  it("exchanges the code and lands on the remembered path", async () => {
    const seen: string[] = [];
    const { router } = await renderApp("/oauth/huggingface/callback?code=c1&state=s1", {
      api: (p) => {
        seen.push(p);
        return p === "/api/v1/oauth2/providers/huggingface/access-token"
          ? json({ access_token: "jwt", token_type: "bearer", redirect_to: "/user-settings" })
          : undefined;
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/user-settings"));
    expect(seen).toContain("/api/v1/oauth2/providers/huggingface/access-token");
  });

  it("shows a clear message when the exchange fails (ERROR_FETCHING_OAUTH_ACCESS_TOKEN)", async () => {
    await renderApp("/oauth/huggingface/callback?code=c1&state=used", {
      api: (p) => (p.endsWith("/access-token") ? json({ detail: "The OAuth state was already used or has expired" }, 400) : undefined),
    });
    const alert = await screen.findByText(/Signing in with Hugging Face did not work/);
    expect(alert.getAttribute("role")).toBe("alert");
    expect(screen.getByRole("link", { name: "Back to sign in" }).getAttribute("href")).toBe("/sign-in?omitCTA=true");
  });

  it("goes home when it has no query", async () => {
    const { router } = await renderApp("/oauth/huggingface/callback", { loggedIn: true });
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
  });
});

describe("hosted space welcome page", () => {
  const onSpace = (items: { name: string }[]) => (p: string) => (p === "/api/v1/settings" ? json(SPACE) : providers(items)(p));

  it("sends sign-in to the welcome page on a hosted space, which names the space and offers both ways in", async () => {
    const { router } = await renderApp("/sign-in", { api: onSpace([{ name: "huggingface" }]) });
    await waitFor(() => expect(router.state.location.pathname).toBe("/welcome-hf-sign-in"));
    expect(await screen.findByRole("heading", { name: "Welcome to annotate" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Sign in with Hugging Face" })).toBeTruthy();
    fireEvent.click(screen.getByRole("link", { name: "Sign in with username" }));
    await waitFor(() => expect(router.state.location.search).toBe("?omitCTA=true"));
    expect(await screen.findByLabelText("Username")).toBeTruthy();
  });

  it("falls back to the normal sign-in when the hub provider is not configured", async () => {
    const { router } = await renderApp("/welcome-hf-sign-in", { api: onSpace([]) });
    await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe("/sign-in?omitCTA=true"));
  });

  it("is left for home outside a hosted space", async () => {
    const { router } = await renderApp("/sign-in");
    await screen.findByLabelText("Username");
    expect(router.state.location.pathname).toBe("/sign-in");
    await router.navigate("/welcome-hf-sign-in");
    await waitFor(() => expect(router.state.location.pathname).not.toBe("/welcome-hf-sign-in"));
  });
});

describe("OAuthProvidersViewModel", () => {
  const repo: OAuthRepository = {
    getProviders: async () => [{ name: "huggingface" }],
    getAccessToken: async () => ({ accessToken: "t", redirectTo: null }),
    authenticationUrl: (p, q) => `/api/v1/oauth2/providers/${p}/authentication?${new URLSearchParams(q).toString()}`,
  };
  const make = (embedded: boolean) => {
    const navigator: BrowserNavigator = { isEmbedded: () => embedded, assign: vi.fn(), openNewWindow: vi.fn() };
    return {
      navigator,
      vm: new OAuthProvidersViewModel(new LoadOAuthProvidersUseCase(repo), new StartOAuthSignInUseCase(repo), navigator),
    };
  };

  it("navigates in the same window, passing the current query on (without omitCTA)", () => {
    const { vm, navigator } = make(false);
    vm.signInWith("huggingface", "?redirect=%2Fuser-settings&omitCTA=true");
    expect(navigator.assign).toHaveBeenCalledWith("/api/v1/oauth2/providers/huggingface/authentication?redirect=%2Fuser-settings");
    expect(navigator.openNewWindow).not.toHaveBeenCalled();
  });

  it("opens a new window when the app is embedded in an iframe", () => {
    const { vm, navigator } = make(true);
    vm.signInWith("huggingface", "");
    expect(navigator.openNewWindow).toHaveBeenCalledWith("/api/v1/oauth2/providers/huggingface/authentication?");
    expect(navigator.assign).not.toHaveBeenCalled();
  });
});
