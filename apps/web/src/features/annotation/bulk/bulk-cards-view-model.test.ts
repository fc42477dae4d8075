import { describe, expect, it } from "vitest";
import { BulkCardsViewModel } from "./bulk-cards-view-model";

describe("BulkCardsViewModel", () => {
  it("starts collapsed: cards are clamped, and only overflowing ones fade and offer 'Show more'", () => {
    const cards = new BulkCardsViewModel();
    cards.setOverflowing("long", true);
    expect([cards.isClamped("short"), cards.fades("short"), cards.offersToggle("short")]).toEqual([true, false, false]);
    expect([cards.isClamped("long"), cards.fades("long"), cards.offersToggle("long")]).toEqual([true, true, true]);
  });

  it("'Show more' opens one card (no fade, still offers 'Show less'); a new page closes it", () => {
    const cards = new BulkCardsViewModel();
    cards.setOverflowing("long", true);
    cards.toggleCard("long");
    expect([cards.isClamped("long"), cards.fades("long"), cards.offersToggle("long")]).toEqual([false, false, true]);
    cards.toggleCard("long");
    expect(cards.isClamped("long")).toBe(true);
    cards.toggleCard("long");
    cards.forgetCards();
    expect([cards.isClamped("long"), cards.offersToggle("long")]).toEqual([true, false]);
  });

  it("'Expand records' shows every card whole, without per-card toggles; collapsing again starts clean", () => {
    const cards = new BulkCardsViewModel();
    cards.setOverflowing("long", true);
    cards.toggleCard("long");
    cards.toggleCollapsed();
    expect([cards.collapsed, cards.isClamped("long"), cards.offersToggle("long"), cards.fades("long")]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    cards.toggleCollapsed();
    expect([cards.isClamped("long"), cards.fades("long")]).toEqual([true, true]);
  });

  it("records an overflow change only once", () => {
    const cards = new BulkCardsViewModel();
    cards.setOverflowing("a", true);
    cards.setOverflowing("a", true);
    expect(cards.overflowing.size).toBe(1);
    cards.setOverflowing("a", false);
    expect(cards.overflowing.size).toBe(0);
  });
});
