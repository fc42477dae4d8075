import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";

const isMac = () => typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** The keyboard shortcuts help dialog (spec 2.2, current generation). */
export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const mod = isMac() ? "⌘" : "Ctrl";
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [onClose]);
  const rows: Array<[string, string]> = [
    ["submit", "↵ Enter"],
    ["discard", "⌫ Backspace"],
    ["draft", `${mod} + S`],
    ["nextRecord", "→"],
    ["previousRecord", "←"],
    ["moveQuestions", "↓ / ↑"],
    ["selectLabel", "1, 2, 3 …"],
    ["moveLabels", "Tab / Shift + Tab"],
    ["rank", "1, 2, 3 … / ⌫"],
    ["textArea", "Shift + Enter / Esc"],
    ["characterSpan", "Shift"],
  ];
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        tabIndex={-1}
        ref={ref}
        onClick={(e) => e.stopPropagation()}
      >
        <h2 id="shortcuts-title">{t("annotation.shortcuts.title")}</h2>
        <table className="shortcuts">
          <tbody>
            {rows.map(([key, keys]) => (
              <tr key={key}>
                <th scope="row">{t(`annotation.shortcuts.${key}`)}</th>
                <td>
                  <kbd>{keys}</kbd>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" className="button" onClick={onClose}>
          {t("annotation.shortcuts.close")}
        </button>
      </div>
    </div>
  );
}
