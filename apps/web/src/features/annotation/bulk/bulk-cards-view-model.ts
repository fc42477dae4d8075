import { action, makeObservable, observable } from "mobx";

/**
 * How the bulk view shows its record cards: collapsed ('Collapse records', the default: each card's fields clamped to
 * a fixed height with a fade and 'Show more' when they overflow) or expanded ('Expand records': every card whole).
 * A single card can be opened while collapsed; changing page forgets those.
 */
export class BulkCardsViewModel {
  collapsed = true;
  /** Cards opened one by one with 'Show more' while collapsed. */
  readonly opened = new Set<string>();
  /** Cards whose clamped fields are taller than the clamp (measured by the view). */
  readonly overflowing = new Set<string>();

  constructor() {
    makeObservable(this, {
      collapsed: observable,
      opened: observable,
      overflowing: observable,
      toggleCollapsed: action,
      toggleCard: action,
      setOverflowing: action,
      forgetCards: action,
    });
  }

  toggleCollapsed(): void {
    this.collapsed = !this.collapsed;
    this.opened.clear();
  }
  toggleCard(id: string): void {
    if (this.opened.has(id)) this.opened.delete(id);
    else this.opened.add(id);
  }

  setOverflowing(id: string, overflowing: boolean): void {
    if (overflowing === this.overflowing.has(id)) return;
    if (overflowing) this.overflowing.add(id);
    else this.overflowing.delete(id);
  }

  /** Whether a card's fields are cut at the clamp height. */
  isClamped(id: string): boolean {
    return this.collapsed && !this.opened.has(id);
  }
  /** Whether a card offers 'Show more' / 'Show less'. */
  offersToggle(id: string): boolean {
    return this.collapsed && (this.opened.has(id) || this.overflowing.has(id));
  }
  /** Whether the fade over the cut shows (clamped and taller than the clamp). */
  fades(id: string): boolean {
    return this.isClamped(id) && this.overflowing.has(id);
  }

  /** A new page: cards opened one by one close again. */
  forgetCards(): void {
    this.opened.clear();
    this.overflowing.clear();
  }
}
