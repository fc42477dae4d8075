import { describe, expect, it } from "vitest";
import { fireEvent, screen } from "@testing-library/react";
import { renderApp } from "../app/test-app";

describe("AvatarMenu", () => {
  it("opens with focus on the first item, moves with arrows, closes with Escape back on the avatar", async () => {
    await renderApp("/", { loggedIn: true });
    const avatar = await screen.findByRole("button", { name: "User menu" });
    fireEvent.click(avatar);
    const items = screen.getAllByRole("menuitem");
    expect(items.map((i) => i.textContent)).toEqual(["My settings", "View docs", "Log out"]);
    expect(document.activeElement).toBe(items[0]);
    fireEvent.keyDown(document, { key: "ArrowDown" });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(document, { key: "ArrowUp" });
    fireEvent.keyDown(document, { key: "ArrowUp" });
    expect(document.activeElement).toBe(items[2]);
    fireEvent.keyDown(document, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(avatar);
  });
});
