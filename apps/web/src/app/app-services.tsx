import { createContext, useContext, type ReactNode } from "react";
import type { ToastStore } from "../notifications/toast-store";
import type { ThemeViewModel } from "../theme/theme-view-model";
import type { LanguageViewModel } from "../language/language-view-model";

/** App-wide UI services created once in main.tsx (or by a test) and shared through context. */
export interface AppServices {
  toasts: ToastStore;
  theme: ThemeViewModel;
  language: LanguageViewModel;
}

const AppServicesContext = createContext<AppServices | null>(null);

export function AppServicesProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <AppServicesContext.Provider value={services}>{children}</AppServicesContext.Provider>;
}

export function useAppServices(): AppServices {
  const services = useContext(AppServicesContext);
  if (!services) throw new Error("AppServicesProvider is missing");
  return services;
}

/** The toast store, to raise toasts from a component: `useToasts().notify({ message, type: "danger" })`. */
export const useToasts = (): ToastStore => useAppServices().toasts;
