import { useMemo } from "react";
import { RouterProvider } from "react-router/dom";
import { I18nextProvider } from "react-i18next";
import type { i18n } from "i18next";
import type { DependencyContainer } from "tsyringe";
import { LoadUserUseCase, SignOutUseCase } from "@tessera/domain";
import { ContainerProvider } from "./container-context";
import { SessionProvider } from "../features/session/session-context";
import { SessionViewModel } from "../features/session/session-view-model";
import { createAppRouter } from "./router";

export function App({ container, i18n }: { container: DependencyContainer; i18n: i18n }) {
  const session = useMemo(() => new SessionViewModel(container.resolve(LoadUserUseCase), container.resolve(SignOutUseCase)), [container]);
  const router = useMemo(() => createAppRouter(session), [session]);
  return (
    <I18nextProvider i18n={i18n}>
      <ContainerProvider container={container}>
        <SessionProvider session={session}>
          <RouterProvider router={router} />
        </SessionProvider>
      </ContainerProvider>
    </I18nextProvider>
  );
}
