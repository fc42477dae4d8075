import { action, computed, makeObservable, observable, observableRef } from "mobx";
import {
  TOAST_HIDE_DELAY_MS,
  TOAST_OPEN_DELAY_MS,
  TOAST_QUEUE_RECHECK_MS,
  toastDuration,
  type Notification,
  type NotificationPort,
  type NotificationType,
} from "@tessera/domain";

/** Spec section 2: where a toast shows. */
export type ToastPosition = "top-right" | "top" | "top-left" | "bottom-right" | "bottom" | "bottom-left";
export const TOAST_POSITIONS: readonly ToastPosition[] = ["top-right", "top", "top-left", "bottom-right", "bottom", "bottom-left"];

/** What the UI may pass on top of the domain's notification: a position and an action button. */
export interface ToastOptions extends Notification {
  position?: ToastPosition;
  /** Text of an optional action button (e.g. 'Ignore and continue'). */
  buttonText?: string;
  onClick?: () => void;
  onClose?: () => void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

let nextId = 1;

export class Toast {
  readonly id = nextId++;
  readonly message: string;
  readonly type: NotificationType;
  readonly position: ToastPosition;
  readonly permanent: boolean;
  readonly buttonText: string | undefined;
  /** False while the 150 ms hide runs. */
  visible = true;
  paused = false;
  remaining: number;
  timer: unknown = null;
  startedAt = 0;

  constructor(readonly options: ToastOptions) {
    this.message = options.message;
    this.type = options.type ?? "success";
    this.position = options.position ?? "top-right";
    this.permanent = options.permanent ?? false;
    this.buttonText = options.buttonText;
    this.remaining = toastDuration(options.message);
    makeObservable(this, { visible: observable, paused: observable });
  }
}

/**
 * The toast store: implements the domain's NotificationPort, so the failed-request handler and
 * any use case can raise toasts; the <Toasts> component observes it. One toast shows at a time:
 * a new one opens after 100 ms, or waits (re-checking every 250 ms) while another is showing.
 */
export class ToastStore implements NotificationPort {
  toasts: Toast[] = [];
  private readonly waiting = new Set<{ handle: unknown }>();

  constructor(private readonly timers: Timers = realTimers) {
    makeObservable<ToastStore, "show" | "remove">(this, {
      toasts: observableRef,
      isShowing: computed,
      show: action,
      close: action,
      remove: action,
      clear: action,
      pause: action,
      resume: action,
    });
  }

  get isShowing(): boolean {
    return this.toasts.length > 0;
  }

  notify(options: ToastOptions): void {
    const toast = new Toast(options);
    const slot: { handle: unknown } = { handle: null };
    const attempt = () => {
      if (this.isShowing) {
        slot.handle = this.timers.setTimeout(attempt, TOAST_QUEUE_RECHECK_MS);
        return;
      }
      this.waiting.delete(slot);
      this.show(toast);
    };
    this.waiting.add(slot);
    slot.handle = this.timers.setTimeout(attempt, TOAST_OPEN_DELAY_MS);
  }

  close(toast: Toast): void {
    if (!toast.visible) return;
    this.stopTimer(toast);
    toast.visible = false;
    this.timers.setTimeout(() => this.remove(toast), TOAST_HIDE_DELAY_MS);
    toast.options.onClose?.();
  }

  /** Hover pauses the auto-close timer. */
  pause(toast: Toast): void {
    if (toast.permanent || toast.paused || !toast.visible) return;
    this.stopTimer(toast);
    toast.remaining = Math.max(0, toast.remaining - (this.timers.now() - toast.startedAt));
    toast.paused = true;
  }

  /** Leaving resumes it with the time that was left. */
  resume(toast: Toast): void {
    if (!toast.paused) return;
    toast.paused = false;
    this.startTimer(toast);
  }

  /** Clears every visible and queued toast. */
  clear(): void {
    for (const slot of this.waiting) this.timers.clearTimeout(slot.handle);
    this.waiting.clear();
    for (const toast of this.toasts) this.stopTimer(toast);
    this.toasts = [];
  }

  clickAction(toast: Toast): void {
    toast.options.onClick?.();
    this.close(toast);
  }

  private show(toast: Toast): void {
    this.toasts = [...this.toasts, toast];
    this.startTimer(toast);
  }

  private remove(toast: Toast): void {
    this.toasts = this.toasts.filter((t) => t !== toast);
  }

  private startTimer(toast: Toast): void {
    if (toast.permanent) return;
    toast.startedAt = this.timers.now();
    toast.timer = this.timers.setTimeout(() => this.close(toast), toast.remaining);
  }

  private stopTimer(toast: Toast): void {
    if (toast.timer !== null) this.timers.clearTimeout(toast.timer);
    toast.timer = null;
  }
}
