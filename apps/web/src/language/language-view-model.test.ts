import { describe, expect, it } from "vitest";
import { MemoryStorage, PRODUCT_STORAGE_KEY, ProductStorage } from "@tessera/infrastructure";
import { createI18n } from "../i18n/i18n";
import { LanguageViewModel, initialLocale } from "./language-view-model";

describe("LanguageViewModel", () => {
  it("prefers the stored language over the browser's", () => {
    const storage = new ProductStorage(new MemoryStorage());
    expect(initialLocale(storage, ["de-DE"])).toBe("de");
    storage.set("language", "es");
    expect(initialLocale(storage, ["de-DE"])).toBe("es");
    storage.set("language", "xx");
    expect(initialLocale(storage, ["fr"])).toBe("en");
  });

  it("switches i18next, <html lang> and persists the choice", async () => {
    const raw = new MemoryStorage();
    const storage = new ProductStorage(raw);
    const i18n = await createI18n("en");
    const root = { lang: "en" };
    const vm = new LanguageViewModel(i18n, storage, root);
    await vm.setLocale("de");
    expect(i18n.language).toBe("de");
    expect(root.lang).toBe("de");
    expect(i18n.t("user.mySettings")).not.toBe("My settings");
    expect(JSON.parse(raw.getItem(PRODUCT_STORAGE_KEY)!)).toEqual({ language: "de" });
  });
});
