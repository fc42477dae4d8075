import { createContext, useContext, useEffect, type ReactNode } from "react";
import { autorun } from "mobx";
import type { SessionViewModel } from "../session/session-view-model";
import type { OfflineAnswersViewModel } from "./offline-answers-view-model";

const OfflineAnswersContext = createContext<OfflineAnswersViewModel | null>(null);

/**
 * Gives the app its offline answers: follows the signed-in user (their outbox is loaded and sent) and warns
 * before the page is left while answers are only on this device.
 */
export function OfflineAnswersProvider({
  offline,
  session,
  children,
}: {
  offline: OfflineAnswersViewModel;
  session: SessionViewModel;
  children: ReactNode;
}) {
  useEffect(
    () =>
      autorun(() => {
        void offline.setUser(session.user?.id ?? null);
      }),
    [offline, session],
  );
  useEffect(() => {
    const onUnload = (event: BeforeUnloadEvent) => {
      if (offline.hasUnsent) event.preventDefault();
    };
    window.addEventListener("beforeunload", onUnload);
    return () => window.removeEventListener("beforeunload", onUnload);
  }, [offline]);
  return <OfflineAnswersContext.Provider value={offline}>{children}</OfflineAnswersContext.Provider>;
}

export function useOfflineAnswers(): OfflineAnswersViewModel {
  const offline = useContext(OfflineAnswersContext);
  if (!offline) throw new Error("OfflineAnswersProvider is missing");
  return offline;
}
