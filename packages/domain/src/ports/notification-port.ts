/** Spec section 2 toast types. */
export type NotificationType = "success" | "danger" | "info" | "warning" | "default";

export interface Notification {
  message: string;
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
