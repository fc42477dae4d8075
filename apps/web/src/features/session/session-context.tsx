import { createContext, useContext, type ReactNode } from "react";
import type { SessionViewModel } from "./session-view-model";

const SessionContext = createContext<SessionViewModel | null>(null);

export function SessionProvider({ session, children }: { session: SessionViewModel; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionViewModel {
  const session = useContext(SessionContext);
  if (!session) throw new Error("SessionProvider is missing");
  return session;
}
