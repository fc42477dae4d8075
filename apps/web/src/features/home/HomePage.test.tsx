import { describe, expect, it } from "vitest";
import { fireEvent, screen, within } from "@testing-library/react";
import { json, renderApp } from "../../app/test-app";

const dataset = (id: string, name: string, updated: string) => ({
  id,
  name,
  guidelines: null,
  status: "ready",
  workspace_id: "w1",
  allow_extra_metadata: false,
  distribution: { strategy: "overlap", min_submitted: 1 },
  metadata: null,
  inserted_at: "2026-01-01T00:00:00",
  updated_at: updated,
  last_activity_at: updated,
});
const api = (path: string) => {
  if (path === "/api/v1/me/datasets")
    return json({ items: [dataset("d1", "imdb reviews", "2026-02-01T00:00:00"), dataset("d2", "banking", "2026-03-01T00:00:00")] });
  if (path === "/api/v1/me/workspaces") return json({ items: [{ id: "w1", name: "team" }] });
  if (path === "/api/v1/datasets/d1/progress") return json({ total: 3, completed: 1, pending: 2 });
  if (path === "/api/v1/datasets/d2/progress") return json({ total: 0, completed: 0, pending: 0 });
  return undefined;
};

describe("HomePage", () => {
  it("lists datasets with links to annotation, team progress, search and sorting", async () => {
    await renderApp("/", { loggedIn: true, api });
    const table = await screen.findByRole("table");
    const names = () =>
      within(table)
        .getAllByRole("rowheader")
        .map((c) => c.textContent);
    expect(names()).toEqual(["banking", "imdb reviews"]);
    expect(within(table).getByRole("link", { name: "imdb reviews" }).getAttribute("href")).toBe("/dataset/d1/annotation-mode");
    const bar = await within(table).findByRole("progressbar", { name: "1 of 3 records completed (33.33%)" });
    expect(bar.getAttribute("aria-valuenow")).toBe("33.33");
    fireEvent.click(within(table).getByRole("button", { name: /Dataset/ }));
    expect(names()).toEqual(["banking", "imdb reviews"]);
    expect(within(table).getAllByRole("columnheader")[0]!.getAttribute("aria-sort")).toBe("ascending");
    fireEvent.click(within(table).getByRole("button", { name: /Dataset/ }));
    expect(names()).toEqual(["imdb reviews", "banking"]);
    fireEvent.change(screen.getByRole("searchbox", { name: "Search datasets" }), { target: { value: "IMDB" } });
    expect(names()).toEqual(["imdb reviews"]);
    expect(screen.getByText("1 dataset found")).toBeTruthy();
  });

  it("shows the empty state, and the hub import navigates to /new/<encoded repo id>", async () => {
    const { router } = await renderApp("/", { loggedIn: true });
    expect(await screen.findByText("None yet")).toBeTruthy();
    expect(screen.getByText(/api_key="<your API key: generate one in My settings>"/)).toBeTruthy();
    expect(screen.getByText(/api_url="http:\/\/localhost:3000"|api_url="http:\/\/localhost"/)).toBeTruthy();
    const input = screen.getByPlaceholderText("Paste a repo id e.g., stanfordnlp/imdb");
    fireEvent.change(input, { target: { value: "stanfordnlp/imdb" } });
    fireEvent.click(screen.getByRole("button", { name: "Import dataset" }));
    await screen.findByRole("heading", { name: "Create a dataset" });
    expect(router.state.location.pathname).toBe("/new/stanfordnlp%2Fimdb");
  });
});
