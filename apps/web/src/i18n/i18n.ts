import i18next, { type i18n } from "i18next";
import { initReactI18next } from "react-i18next";
import en from "./locales/en";
import de from "./locales/de";
import es from "./locales/es";

export const SUPPORTED_LOCALES = ["en", "de", "es"] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const resources = { en: { translation: en }, de: { translation: de }, es: { translation: es } };

/**
 * Spec section 1: the browser locale is tried as the full code, then as its base language;
 * en is the default and fallback. No URL prefix.
 */
export function detectLocale(languages: readonly string[]): Locale {
  const supported = SUPPORTED_LOCALES as readonly string[];
  for (const language of languages) {
    const full = language.toLowerCase();
    if (supported.includes(full)) return full as Locale;
    const base = full.split("-")[0] ?? "";
    if (supported.includes(base)) return base as Locale;
  }
  return "en";
}

export function browserLanguages(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

export async function createI18n(locale: Locale = detectLocale(browserLanguages())): Promise<i18n> {
  const instance = i18next.createInstance();
  await instance.use(initReactI18next).init({
    resources,
    lng: locale,
    fallbackLng: "en",
    supportedLngs: [...SUPPORTED_LOCALES],
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  if (typeof document !== "undefined") document.documentElement.lang = locale;
  return instance;
}
