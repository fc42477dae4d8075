import { render } from "@testing-library/react";
import { RouterProvider, createMemoryRouter } from "react-router";
import { I18nextProvider } from "react-i18next";
import { GetEnvironmentUseCase, LoadUserUseCase, SignOutUseCase } from "@tessera/domain";
import { INFRA_TOKENS, MemoryStorage, PRODUCT_STORAGE_KEY, createContainer, type ProductStorage } from "@tessera/infrastructure";
import { ContainerProvider } from "./container-context";
import { AppServicesProvider, type AppServices } from "./app-services";
import { SessionProvider } from "../features/session/session-context";
import { SessionViewModel } from "../features/session/session-view-model";
import { createRoutes } from "./router";
import { createI18n } from "../i18n/i18n";
import { ToastStore } from "../notifications/toast-store";
import { ThemeViewModel } from "../theme/theme-view-model";
import { LanguageViewModel, initialLocale } from "../language/language-view-model";
import { OfflineAnswersProvider } from "../features/offline/offline-context";
import { createOfflineAnswers } from "../features/offline/create-offline-answers";
import { ManualOfflineEnvironment } from "../features/offline/test-environment";

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
/** `/me` never carries the API key (the server stores a digest; a key is shown once, when generated). */
export const ME = { id: "u1", username: "owner", first_name: "Olivia", last_name: "Owner", role: "owner" };

let apps = 0;

/** Renders the whole app (real routes, middleware, container) in a memory router against a fake API. For tests only. */
export async function renderApp(
  path: string,
  options: { loggedIn?: boolean; api?: (path: string) => Response | undefined; storage?: MemoryStorage } = {},
) {
  const raw = options.storage ?? new MemoryStorage();
  if (options.loggedIn)
    raw.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ ...JSON.parse(raw.getItem(PRODUCT_STORAGE_KEY) ?? "{}"), "auth.token": "t" }));
  const fetch = (async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const custom = options.api?.(url.pathname);
    if (custom) return custom;
    if (url.pathname === "/api/v1/me") return json(ME);
    if (url.pathname === "/api/v1/settings")
      return json({ argilla: { show_huggingface_space_persistent_storage_warning: null }, huggingface: null });
    if (url.pathname.endsWith("/me/datasets") || url.pathname.endsWith("/me/workspaces")) return json({ items: [] });
    return json({ detail: "not found" }, 404);
  }) as typeof globalThis.fetch;
  const toasts = new ToastStore();
  const container = createContainer({
    storage: raw,
    origin: "http://app.test",
    fetch,
    notifications: toasts,
    offlineDatabase: `test-app-${++apps}`,
  });
  const offline = createOfflineAnswers(container, new ManualOfflineEnvironment());
  const storage = container.resolve<ProductStorage>(INFRA_TOKENS.ProductStorage);
  const i18n = await createI18n(initialLocale(storage, ["en"]));
  const services: AppServices = {
    toasts,
    theme: new ThemeViewModel(storage, { root: document.documentElement }),
    language: new LanguageViewModel(i18n, storage, document.documentElement),
  };
  const session = new SessionViewModel(container.resolve(LoadUserUseCase), container.resolve(SignOutUseCase));
  const environment = container.resolve(GetEnvironmentUseCase);
  const router = createMemoryRouter(
    createRoutes({
      session,
      onHostedSpace: async () => (await environment.execute()).hostedSpace !== null,
      setupLanguage: () => services.language.setup(),
    }),
    { initialEntries: [path] },
  );
  const view = render(
    <I18nextProvider i18n={i18n}>
      <ContainerProvider container={container}>
        <AppServicesProvider services={services}>
          <SessionProvider session={session}>
            <OfflineAnswersProvider offline={offline} session={session}>
              <RouterProvider router={router} />
            </OfflineAnswersProvider>
          </SessionProvider>
        </AppServicesProvider>
      </ContainerProvider>
    </I18nextProvider>,
  );
  return { view, router, services, storage, raw, session, i18n, offline };
}
