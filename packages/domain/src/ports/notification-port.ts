/** Spec section 2 toast types. */
export type NotificationType = "success" | "danger" | "info" | "warning" | "default";

export interface Notification {
  /** The text to show (English, or a server detail). */
  message: string;
  /** The i18n key of the message, when it has one; the web app translates it (falling back to message). */
  key?: string;
  params?: { [name: string]: string | number };
  type?: NotificationType;
  /** A permanent toast does not auto-close. */
  permanent?: boolean;
}

/**
 * How the domain and the infrastructure raise toasts. The web app implements it (toast store)
 * and hands it to the composition root (`createContainer({ notifications })`).
 */
export interface NotificationPort {
  notify(notification: Notification): void;
  /** Clears every visible and queued toast (done before showing a failed request's toast). */
  clear(): void;
}
