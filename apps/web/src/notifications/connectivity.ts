import type { ToastStore } from "./toast-store";

/**
 * Spec section 1: 'You are offline' (danger, stays until the connection is back) and
 * 'You are online again'. Returns the function that stops listening.
 */
export function watchConnectivity(
  target: Pick<Window, "addEventListener" | "removeEventListener">,
  toasts: ToastStore,
  t: (key: string) => string,
): () => void {
  const offline = () => {
    toasts.clear();
    toasts.notify({ message: t("connectivity.offline"), type: "danger", permanent: true });
  };
  const online = () => {
    toasts.clear();
    toasts.notify({ message: t("connectivity.online"), type: "success" });
  };
  target.addEventListener("offline", offline);
  target.addEventListener("online", online);
  return () => {
    target.removeEventListener("offline", offline);
    target.removeEventListener("online", online);
  };
}
