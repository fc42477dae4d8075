import { describe, expect, it } from "vitest";
import { createI18n, detectLocale, resources } from "./i18n";

function keys(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

describe("i18n", () => {
  it("has exactly the same keys, all non-empty, in en, de and es", () => {
    const en = keys(resources.en.translation).sort();
    for (const locale of ["de", "es"] as const) {
      expect(keys(resources[locale].translation).sort()).toEqual(en);
    }
    for (const locale of ["en", "de", "es"] as const) {
      const walk = (v: unknown): void => {
        if (typeof v === "string") expect(v.trim()).not.toBe("");
        else Object.values(v as object).forEach(walk);
      };
      walk(resources[locale].translation);
    }
  });

  it.each([
    [["de-DE", "en"], "de"],
    [["es"], "es"],
    [["es-MX"], "es"],
    [["fr-FR", "de-AT"], "de"],
    [["fr", "it"], "en"],
    [[], "en"],
  ])("detects %j as %s (full code, then base language, fallback en)", (languages, expected) => {
    expect(detectLocale(languages)).toBe(expected);
  });

  it("shows a total given as a lower bound as 'N+', with the language's digit grouping", async () => {
    const position = { page: 3, total: 10000 };
    expect((await createI18n("en")).t("annotation.nav.positionAtLeast", position)).toBe("Record 3 of 10,000+");
    expect((await createI18n("de")).t("annotation.nav.positionAtLeast", position)).toBe("Datensatz 3 von 10.000+");
    expect((await createI18n("es")).t("annotation.nav.positionAtLeast", position)).toMatch(/^Registro 3 de 10.000\+$/);
    expect((await createI18n("en")).t("annotation.bulk.pageAtLeast", { page: 1, pages: 1000 })).toBe("Page 1 of 1,000+");
  });

  it("translates the sign-in error in each language", async () => {
    expect((await createI18n("en")).t("signIn.wrongCredentials")).toBe("Wrong username or password. Try again");
    expect((await createI18n("de")).t("signIn.wrongCredentials")).toMatch(/Falscher Benutzername/);
    expect((await createI18n("es")).t("signIn.wrongCredentials")).toMatch(/incorrectos/);
  });
});
