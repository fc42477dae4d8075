import { useEffect, useRef, type ReactNode } from "react";
import { autorun } from "mobx";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { GetEnvironmentUseCase } from "@tessera/domain";
import { useResolve } from "./container-context";
import { useAppServices } from "./app-services";
import { useSession } from "../features/session/session-context";
import { Toasts } from "../notifications/Toasts";
import { watchConnectivity } from "../notifications/connectivity";
import { persistentStorageWarning } from "../notifications/persistent-storage";

/** Wraps every page: the toasts, the offline/online toasts and the hosted-space storage warning. */
export const AppShell = observer(function AppShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { toasts } = useAppServices();
  const session = useSession();
  const environment = useResolve(GetEnvironmentUseCase);
  const warned = useRef(false);

  useEffect(() => watchConnectivity(window, toasts, (key) => t(key)), [toasts, t]);

  useEffect(
    () =>
      autorun(() => {
        const user = session.user;
        if (!user || warned.current) return;
        warned.current = true;
        void environment.execute().then((env) => {
          const warning = persistentStorageWarning(env, user, (key, vars) => t(key, vars ?? {}));
          if (warning) toasts.notify(warning);
        });
      }),
    [session, environment, toasts, t],
  );

  return (
    <>
      {children}
      <Toasts store={toasts} />
    </>
  );
});
