import type { Environment, User } from "@tessera/domain";
import type { ToastOptions } from "./toast-store";

/**
 * Spec sections 1 and 6: on a hosted space without persistent storage, a permanent warning; admins
 * and owners are sent to the space settings, annotators are only told.
 */
export function persistentStorageWarning(
  env: Environment,
  user: User,
  t: (key: string, vars?: Record<string, string>) => string,
): ToastOptions | null {
  if (!env.showPersistentStorageWarning) return null;
  if (user.isAdminOrOwner) {
    const settingsUrl = env.hostedSpace ? `https://huggingface.co/spaces/${env.hostedSpace.id}/settings` : "";
    return { message: t("persistentStorage.adminOrOwner", { settingsUrl }), type: "warning", permanent: true };
  }
  return { message: t("persistentStorage.annotator"), type: "warning", permanent: true };
}
