/** How the browser leaves the app for the provider: same window, or a new one when the app is embedded. */
export interface BrowserNavigator {
  /** True when the app runs inside an iframe (e.g. a hosted space on the hub's page). */
  isEmbedded(): boolean;
  assign(url: string): void;
  openNewWindow(url: string): void;
}

export const windowNavigator: BrowserNavigator = {
  isEmbedded: () => {
    try {
      return window.self !== window.top;
    } catch {
      return true; // a cross-origin parent denies access to window.top
    }
  },
  assign: (url) => window.location.assign(url),
  openNewWindow: (url) => {
    window.open(url, "_blank", "noopener");
  },
};

/** Display names of known providers; others show their configured name. */
export function providerDisplayName(name: string): string {
  return name === "huggingface" ? "Hugging Face" : name;
}

/** Only local paths are followed after sign-in (no open redirect). */
export function localTarget(path: string | null | undefined): string {
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\") || path.startsWith("/sign-in")) return "/";
  return path;
}
