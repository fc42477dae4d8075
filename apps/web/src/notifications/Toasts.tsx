import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { TOAST_POSITIONS, type ToastStore } from "./toast-store";

/** Renders the toast store: one region per position; danger toasts are alerts, others status messages. */
export const Toasts = observer(function Toasts({ store }: { store: ToastStore }) {
  const { t } = useTranslation();
  return (
    <>
      {TOAST_POSITIONS.map((position) => {
        const toasts = store.toasts.filter((toast) => toast.position === position);
        return (
          <div key={position} className={`toasts toasts--${position}`} aria-live="polite">
            {toasts.map((toast) => (
              <div
                key={toast.id}
                role={toast.type === "danger" ? "alert" : "status"}
                className={`toast toast--${toast.type}${toast.visible ? "" : " toast--hiding"}`}
                onMouseEnter={() => store.pause(toast)}
                onMouseLeave={() => store.resume(toast)}
                onFocus={() => store.pause(toast)}
                onBlur={() => store.resume(toast)}
              >
                <span className="toast__icon" aria-hidden="true" />
                <p className="toast__message">{toast.message}</p>
                {toast.buttonText && (
                  <button type="button" className="toast__action" onClick={() => store.clickAction(toast)}>
                    {toast.buttonText}
                  </button>
                )}
                <button type="button" className="toast__close" aria-label={t("toast.close")} onClick={() => store.close(toast)}>
                  ×
                </button>
              </div>
            ))}
          </div>
        );
      })}
    </>
  );
});
