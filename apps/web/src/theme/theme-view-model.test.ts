import { describe, expect, it } from "vitest";
import { MemoryStorage, PRODUCT_STORAGE_KEY, ProductStorage } from "@tessera/infrastructure";
import { ThemeViewModel, type ThemeEnvironment } from "./theme-view-model";

function env(dark: boolean) {
  const attrs: Record<string, string> = {};
  let listener: ((e: { matches: boolean }) => void) | null = null;
  const e: ThemeEnvironment = {
    root: {
      setAttribute: (n, v) => {
        attrs[n] = v;
      },
    },
    matchMedia: () =>
      ({
        matches: dark,
        addEventListener: (_: string, l: never) => {
          listener = l;
        },
        removeEventListener: () => {},
      }) as never,
  };
  return { e, attrs, fire: (matches: boolean) => listener?.({ matches }) };
}

describe("ThemeViewModel", () => {
  it("defaults to system and follows the system colour scheme", () => {
    const { e, attrs, fire } = env(true);
    const vm = new ThemeViewModel(new ProductStorage(new MemoryStorage()), e);
    expect(vm.preference).toBe("system");
    expect(attrs["data-theme"]).toBe("dark");
    fire(false);
    expect(attrs["data-theme"]).toBe("light");
  });

  it("stores the choice in the product object and restores it in a new session", () => {
    const storage = new MemoryStorage();
    const first = env(false);
    new ThemeViewModel(new ProductStorage(storage), first.e).setPreference("dark");
    expect(first.attrs["data-theme"]).toBe("dark");
    expect(JSON.parse(storage.getItem(PRODUCT_STORAGE_KEY)!)).toMatchObject({ theme: "dark" });
    const second = env(false);
    const vm = new ThemeViewModel(new ProductStorage(storage), second.e);
    expect(vm.preference).toBe("dark");
    expect(second.attrs["data-theme"]).toBe("dark");
    second.fire(true);
    vm.setPreference("light");
    expect(second.attrs["data-theme"]).toBe("light");
  });

  it("ignores an invalid stored value", () => {
    const storage = new MemoryStorage();
    storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ theme: "purple" }));
    expect(new ThemeViewModel(new ProductStorage(storage), env(false).e).preference).toBe("system");
  });
});
