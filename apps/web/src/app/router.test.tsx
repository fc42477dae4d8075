import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { routeNameFor } from "./router";
import { renderApp } from "./test-app";

describe("route table (spec section 2)", () => {
  it.each([
    ["/", "index"],
    ["/sign-in", "sign-in"],
    ["/welcome-hf-sign-in", "welcome-hf-sign-in"],
    ["/new/stanfordnlp%2Fimdb", "new-id"],
    ["/new", "new-id"],
    ["/new-from-file", "new-from-file"],
    ["/dataset/42/annotation-mode", "dataset-id-annotation-mode"],
    ["/dataset/42/settings", "dataset-id-settings"],
    ["/oauth/huggingface/callback", "oauth-provider-callback"],
    ["/user-settings", "user-settings"],
    ["/stanfordnlp%2Fimdb", "id"],
    ["/a/b/c", undefined],
  ])("%s is %s", (path, name) => {
    expect(routeNameFor(path)).toBe(name);
  });
});

describe("guards and pages in the app", () => {
  it("sends a visitor to sign-in remembering the wanted path", async () => {
    const { router } = await renderApp("/dataset/7/settings?tab=fields");
    await waitFor(() => expect(router.state.location.pathname).toBe("/sign-in"));
    expect(router.state.location.search).toBe("?redirect=%2Fdataset%2F7%2Fsettings%3Ftab%3Dfields");
    expect(await screen.findByRole("heading", { name: "Sign in" })).toBeTruthy();
  });

  it("sends a signed-in user from sign-in to home", async () => {
    const { router } = await renderApp("/sign-in", { loggedIn: true });
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(await screen.findByRole("heading", { name: "Your datasets" })).toBeTruthy();
  });

  it("shows the 404 error page with its texts for an unmatched path", async () => {
    await renderApp("/no/such/page", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "This page could not be found" })).toBeTruthy();
    expect(screen.getByText("404")).toBeTruthy();
    expect(screen.getByText("Something went wrong.")).toBeTruthy();
    expect(screen.getByText("We can't seem to find the page you are looking for")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back to home page" }).getAttribute("href")).toBe("/");
  });

  it("lazy-loads the placeholder pages of the other features", async () => {
    await renderApp("/dataset/7/settings", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "Dataset settings" })).toBeTruthy();
  });

  it("the OAuth callback without a query goes home", async () => {
    const { router } = await renderApp("/oauth/huggingface/callback", { loggedIn: true });
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
  });

  it("applies the stored language in the language-setup middleware on the next navigation", async () => {
    const { i18n, storage, router } = await renderApp("/sign-in");
    await screen.findByRole("heading", { name: "Sign in" });
    storage.set("language", "es");
    await router.navigate("/sign-in?omitCTA=true");
    expect(await screen.findByRole("heading", { name: "Iniciar sesión" })).toBeTruthy();
    expect(i18n.language).toBe("es");
    expect(document.documentElement.lang).toBe("es");
  });
});
