import { action, makeObservable, observable } from "mobx";
import type { i18n } from "i18next";
import type { ProductStorage } from "@tessera/infrastructure";
import { SUPPORTED_LOCALES, browserLanguages, detectLocale, type Locale } from "../i18n/i18n";

export const LANGUAGE_STORAGE_KEY = "language";

/** The stored language when there is one, else the one detected from the browser (spec section 1). */
export function initialLocale(storage: ProductStorage, languages: readonly string[] = browserLanguages()): Locale {
  const stored = storage.get<string>(LANGUAGE_STORAGE_KEY);
  return (SUPPORTED_LOCALES as readonly string[]).includes(stored ?? "") ? (stored as Locale) : detectLocale(languages);
}

/** The UI language: switched from user settings and kept in the product's local-storage object. */
export class LanguageViewModel {
  locale: Locale;

  constructor(
    private readonly i18n: i18n,
    private readonly storage: ProductStorage,
    private readonly root?: { lang: string },
  ) {
    this.locale = (SUPPORTED_LOCALES as readonly string[]).includes(i18n.language) ? (i18n.language as Locale) : "en";
    makeObservable(this, { locale: observable, setLocale: action });
  }

  async setLocale(locale: Locale): Promise<void> {
    this.locale = locale;
    this.storage.set(LANGUAGE_STORAGE_KEY, locale);
    await this.setup();
  }

  /** The 'language setup' middleware: makes i18next and <html lang> follow the chosen locale. */
  async setup(): Promise<void> {
    const wanted = initialLocale(this.storage);
    if (this.i18n.language !== wanted) await this.i18n.changeLanguage(wanted);
    if (this.root) this.root.lang = wanted;
  }
}
