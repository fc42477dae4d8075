import { action, computed, makeObservable, observable } from "mobx";
import type { ProductStorage } from "@tessera/infrastructure";

/** Spec section 1: the stored value is system (default), light or dark. */
export type ThemePreference = "system" | "light" | "dark";
export const THEME_PREFERENCES: readonly ThemePreference[] = ["system", "light", "dark"];
export const THEME_STORAGE_KEY = "theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

export interface ThemeEnvironment {
  root: { setAttribute(name: string, value: string): void };
  matchMedia?: (query: string) => Pick<MediaQueryList, "matches" | "addEventListener" | "removeEventListener">;
}

/** The theme: read from and kept in the product's local-storage object, applied as data-theme on <html>. */
export class ThemeViewModel {
  preference: ThemePreference;
  systemDark: boolean;

  constructor(
    private readonly storage: ProductStorage,
    private readonly env: ThemeEnvironment,
  ) {
    const stored = storage.get<string>(THEME_STORAGE_KEY);
    this.preference = THEME_PREFERENCES.includes(stored as ThemePreference) ? (stored as ThemePreference) : "system";
    const media = env.matchMedia?.(DARK_QUERY);
    this.systemDark = media?.matches ?? false;
    media?.addEventListener("change", (event) => this.setSystemDark(event.matches));
    makeObservable(this, {
      preference: observable,
      systemDark: observable,
      applied: computed,
      setPreference: action,
      setSystemDark: action,
    });
    this.apply();
  }

  /** The theme actually shown. */
  get applied(): "light" | "dark" {
    if (this.preference === "system") return this.systemDark ? "dark" : "light";
    return this.preference;
  }

  setPreference(preference: ThemePreference): void {
    this.preference = preference;
    this.storage.set(THEME_STORAGE_KEY, preference);
    this.apply();
  }

  setSystemDark(dark: boolean): void {
    this.systemDark = dark;
    this.apply();
  }

  private apply(): void {
    this.env.root.setAttribute("data-theme", this.applied);
  }
}
