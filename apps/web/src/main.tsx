import "reflect-metadata";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { INFRA_TOKENS, createContainer, type ProductStorage } from "@tessera/infrastructure";
import "@fontsource/inter/400.css";
import "@fontsource/inter/500.css";
import "@fontsource/inter/600.css";
import "@fontsource/inter/700.css";
import { createI18n } from "./i18n/i18n";
import { App } from "./app/App";
import { ToastStore } from "./notifications/toast-store";
import { ThemeViewModel } from "./theme/theme-view-model";
import { LanguageViewModel, initialLocale } from "./language/language-view-model";
import { CHUNK_RELOAD_KEY, configureChunkReload } from "./app/lazy-page";
import "./styles/global.css";

const toasts = new ToastStore();
const options = { basePath: import.meta.env.VITE_API_BASE_PATH ?? "api", notifications: toasts };
const container = createContainer(options);

const storage = container.resolve<ProductStorage>(INFRA_TOKENS.ProductStorage);
const theme = new ThemeViewModel(storage, { root: document.documentElement, matchMedia: (q) => window.matchMedia(q) });
const i18n = await createI18n(initialLocale(storage));
const language = new LanguageViewModel(i18n, storage, document.documentElement);
configureChunkReload({
  get: () => storage.get<number>(CHUNK_RELOAD_KEY),
  set: (at) => storage.set(CHUNK_RELOAD_KEY, at),
  now: () => Date.now(),
  reload: () => window.location.reload(),
});
window.addEventListener("vite:preloadError", (event) => event.preventDefault());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App container={container} i18n={i18n} services={{ toasts, theme, language }} />
  </StrictMode>,
);
