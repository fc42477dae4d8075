import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { DependencyContainer, InjectionToken } from "tsyringe";

const ContainerContext = createContext<DependencyContainer | null>(null);

export function ContainerProvider({ container, children }: { container: DependencyContainer; children: ReactNode }) {
  return <ContainerContext.Provider value={container}>{children}</ContainerContext.Provider>;
}

/** Resolves a use case (or any registered token) from the composition root's container, once per component. */
export function useResolve<T>(token: InjectionToken<T>): T {
  const container = useContext(ContainerContext);
  if (!container) throw new Error("ContainerProvider is missing");
  return useMemo(() => container.resolve(token), [container, token]);
}
