import { useMemo } from "react";
import { RouterProvider } from "react-router/dom";
import { I18nextProvider } from "react-i18next";
import type { i18n } from "i18next";
import type { DependencyContainer } from "tsyringe";
import { GetEnvironmentUseCase, LoadUserUseCase, SignOutUseCase } from "@tessera/domain";
import { ContainerProvider } from "./container-context";
import { AppServicesProvider, type AppServices } from "./app-services";
import { SessionProvider } from "../features/session/session-context";
import { SessionViewModel } from "../features/session/session-view-model";
import { createAppRouter } from "./router";
import { OfflineAnswersProvider } from "../features/offline/offline-context";
import { createOfflineAnswers } from "../features/offline/create-offline-answers";

export function App({ container, i18n, services }: { container: DependencyContainer; i18n: i18n; services: AppServices }) {
  const session = useMemo(() => new SessionViewModel(container.resolve(LoadUserUseCase), container.resolve(SignOutUseCase)), [container]);
  const offline = useMemo(() => createOfflineAnswers(container), [container]);
  const router = useMemo(() => {
    const environment = container.resolve(GetEnvironmentUseCase);
    return createAppRouter({
      session,
      onHostedSpace: async () => (await environment.execute()).hostedSpace !== null,
      setupLanguage: () => services.language.setup(),
    });
  }, [session, container, services]);
  return (
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
    </I18nextProvider>
  );
}
