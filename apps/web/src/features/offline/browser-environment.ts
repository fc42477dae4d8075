import type { AnswerOutcome, OfflineEnvironment } from "./offline-answers-view-model";

const CHANNEL = "tessera-outbox";

/** The real browser: navigator.onLine and its events, Web Locks across tabs, a BroadcastChannel for change notices. */
export function browserOfflineEnvironment(win: Window = window): OfflineEnvironment {
  const channel = typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel(CHANNEL);
  return {
    isOnline: () => win.navigator.onLine,
    onConnectivity(listener) {
      const online = () => listener(true);
      const offline = () => listener(false);
      win.addEventListener("online", online);
      win.addEventListener("offline", offline);
      return () => {
        win.removeEventListener("online", online);
        win.removeEventListener("offline", offline);
      };
    },
    withLock: <T>(name: string, task: () => Promise<T>): Promise<T> =>
      win.navigator.locks ? (win.navigator.locks.request(name, task) as Promise<T>) : task(),
    // a BroadcastChannel does not deliver a message to the object that posted it: the other tabs hear it
    notify: (userId, outcome) => channel?.postMessage(outcome ? { userId, outcome } : { userId }),
    onNotice(listener) {
      if (!channel) return () => {};
      const onMessage = (event: MessageEvent<{ userId?: unknown; outcome?: AnswerOutcome }>) => {
        if (typeof event.data?.userId === "string") listener(event.data.userId, event.data.outcome);
      };
      channel.addEventListener("message", onMessage);
      return () => channel.removeEventListener("message", onMessage);
    },
    setTimer: (fn, ms) => win.setTimeout(fn, ms),
    clearTimer: (handle) => win.clearTimeout(handle as number),
    random: () => Math.random(),
  };
}
