import { afterEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, within } from "@testing-library/react";
import { PRODUCT_STORAGE_KEY } from "@tessera/infrastructure";
import { json, renderApp } from "../../app/test-app";

afterEach(() => {
  vi.useRealTimers();
});

const api = (path: string) =>
  path === "/api/v1/me/workspaces"
    ? json({
        items: [
          { id: "w2", name: "research" },
          { id: "w1", name: "annotation-team" },
        ],
      })
    : path === "/api/v1/users/u1/api-key"
      ? json({ id: "u1", username: "owner", first_name: "Olivia", last_name: "Owner", role: "owner", api_key: "tsr.new-key" })
      : undefined;

describe("UserSettingsPage", () => {
  it("shows the profile, workspaces, API key and breadcrumbs", async () => {
    await renderApp("/user-settings", { loggedIn: true, api });
    expect(await screen.findByRole("heading", { name: "My settings", level: 1 })).toBeTruthy();
    const crumbs = screen.getByRole("navigation", { name: "Breadcrumb" });
    expect(
      within(crumbs)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["Home", "settings", "my settings"]);
    expect(screen.getByText("Olivia")).toBeTruthy();
    expect(screen.getByText("Owner")).toBeTruthy();
    // The key is never sent again: the page explains why and offers a new one.
    expect(screen.getByText(/Keys are stored so that nobody can read them again/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Copy API key" })).toBeNull();
    const chips = await screen.findByRole("list", { name: "Workspaces" });
    expect(
      within(chips)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["annotation-team", "research"]);
  });

  it("generates a new API key, shows it once, copies it and shows 'Copied' for one second", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { session } = await renderApp("/user-settings", { loggedIn: true, api });
    fireEvent.click(await screen.findByRole("button", { name: "Generate a new API key" }));
    expect(await screen.findByText("tsr.new-key")).toBeTruthy();
    expect(screen.getByText("Copy your new key now: it is shown only this once.")).toBeTruthy();
    expect(session.user?.apiKey).toBe("tsr.new-key");
    const button = screen.getByRole("button", { name: "Copy API key" });
    vi.useFakeTimers();
    await act(async () => {
      fireEvent.click(button);
    });
    expect(writeText).toHaveBeenCalledWith("tsr.new-key");
    expect(screen.getByRole("status", { name: "" }).textContent).toBe("Copied");
    await act(async () => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.queryByText("Copied")).not.toBeNull();
    await act(async () => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByText("Copied")).toBeNull();
  });

  it("says so when a new key could not be generated", async () => {
    await renderApp("/user-settings", {
      loggedIn: true,
      api: (path) => (path === "/api/v1/users/u1/api-key" ? json({ detail: "no" }, 500) : api(path)),
    });
    fireEvent.click(await screen.findByRole("button", { name: "Generate a new API key" }));
    expect((await screen.findByRole("alert")).textContent).toBe("A new API key could not be generated. Try again.");
  });

  it("switches the theme and keeps it in the product storage object", async () => {
    const { raw } = await renderApp("/user-settings", { loggedIn: true, api });
    fireEvent.click(await screen.findByRole("radio", { name: "Dark" }));
    expect(document.documentElement.getAttribute("data-theme")).toBe("dark");
    expect(JSON.parse(raw.getItem(PRODUCT_STORAGE_KEY)!)).toMatchObject({ theme: "dark" });
    fireEvent.click(screen.getByRole("radio", { name: "Light" }));
    expect(document.documentElement.getAttribute("data-theme")).toBe("light");
  });

  it("switches the language to German and stores it", async () => {
    const { raw } = await renderApp("/user-settings", { loggedIn: true, api });
    fireEvent.change(await screen.findByLabelText("Language"), { target: { value: "de" } });
    expect(await screen.findByRole("heading", { name: "Meine Einstellungen", level: 1 })).toBeTruthy();
    expect(JSON.parse(raw.getItem(PRODUCT_STORAGE_KEY)!)).toMatchObject({ language: "de" });
  });
});
