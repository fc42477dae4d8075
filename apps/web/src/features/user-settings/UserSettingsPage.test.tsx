import { afterEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, within } from "@testing-library/react";
import { PRODUCT_STORAGE_KEY } from "@tessera/infrastructure";
import { json, renderApp } from "../../app/test-app";

afterEach(() => { vi.useRealTimers(); });

const api = (path: string) => (path === "/api/v1/me/workspaces" ? json({ items: [{ id: "w2", name: "research" }, { id: "w1", name: "annotation-team" }] }) : undefined);

describe("UserSettingsPage", () => {
  it("shows the profile, workspaces, API key and breadcrumbs", async () => {
    await renderApp("/user-settings", { loggedIn: true, api });
    expect(await screen.findByRole("heading", { name: "My settings", level: 1 })).toBeTruthy();
    const crumbs = screen.getByRole("navigation", { name: "Breadcrumb" });
    expect(within(crumbs).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Home", "settings", "my settings"]);
    expect(screen.getByText("Olivia")).toBeTruthy();
    expect(screen.getByText("Owner")).toBeTruthy();
    expect(screen.getByText("owner.apikey")).toBeTruthy();
    const chips = await screen.findByRole("list", { name: "Workspaces" });
    expect(within(chips).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["annotation-team", "research"]);
  });

  it("copies the API key and shows 'Copied' for one second", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    await renderApp("/user-settings", { loggedIn: true, api });
    const button = await screen.findByRole("button", { name: "Copy API key" });
    vi.useFakeTimers();
    await act(async () => { fireEvent.click(button); });
    expect(writeText).toHaveBeenCalledWith("owner.apikey");
    expect(screen.getByRole("status", { name: "" }).textContent).toBe("Copied");
    await act(async () => { vi.advanceTimersByTime(999); });
    expect(screen.queryByText("Copied")).not.toBeNull();
    await act(async () => { vi.advanceTimersByTime(1); });
    expect(screen.queryByText("Copied")).toBeNull();
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
