import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { createI18n } from "../../i18n/i18n";
import { SortableOptions } from "./SortableOptions";

const ITEMS = [
  { id: "a", label: "Alpha" },
  { id: "b", label: "Beta" },
  { id: "c", label: "Gamma" },
];

async function setup(locale: "en" | "de" | "es" = "en") {
  const i18n = await createI18n(locale);
  const onMove = vi.fn();
  render(
    <I18nextProvider i18n={i18n}>
      <SortableOptions items={ITEMS} onMove={onMove} />
    </I18nextProvider>,
  );
  return onMove;
}

describe("SortableOptions", () => {
  it("moves with the up/down buttons (disabled at the ends) and offers a keyboard drag handle per row", async () => {
    const onMove = await setup();
    expect(screen.getAllByRole("listitem").map((li) => li.textContent?.replace(/[⠿↑↓]/g, ""))).toEqual(["Alpha", "Beta", "Gamma"]);
    expect((screen.getByRole("button", { name: "Move Alpha up" }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Move Gamma down" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Move Beta up" }));
    fireEvent.click(screen.getByRole("button", { name: "Move Beta down" }));
    expect(onMove.mock.calls).toEqual([
      [1, 0],
      [1, 2],
    ]);
    const handle = screen.getByRole("button", { name: "Drag Alpha to reorder" });
    expect(handle.getAttribute("aria-roledescription")).toBe("sortable label");
    expect(handle.tabIndex).toBe(0);
    const instructions = document.getElementById(handle.getAttribute("aria-describedby") ?? "");
    expect(instructions?.textContent).toContain("press Space or Enter");
  });

  it("speaks the user's language (German)", async () => {
    await setup("de");
    const handle = screen.getByRole("button", { name: "Beta ziehen, um die Reihenfolge zu ändern" });
    expect(handle.getAttribute("aria-roledescription")).toBe("sortierbares Label");
    expect(screen.getByRole("button", { name: "Beta nach oben" })).toBeTruthy();
  });
});
