import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { COPY_TOOLTIP_MS } from "@tessera/domain";

/**
 * Copies text to the clipboard and shows a 'Copied' tooltip for 1 second (spec section 2). `iconOnly` shows the icon
 * without the word 'Copy' (the label still names the button), `className` replaces the button's look.
 */
export function CopyButton({
  text,
  label,
  onCopied,
  iconOnly = false,
  className = "button button--small",
}: {
  text: string;
  label: string;
  onCopied?: () => void;
  iconOnly?: boolean;
  className?: string;
}) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      fallbackCopy(text);
    }
    setCopied(true);
    onCopied?.();
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPY_TOOLTIP_MS);
  };

  return (
    <span className="copy-button">
      <button type="button" className={className} onClick={() => void copy()} aria-label={label}>
        <svg aria-hidden="true" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
          <rect x="9" y="9" width="13" height="13" rx="2" />
          <path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1" />
        </svg>
        {!iconOnly && <span>{t("common.copy")}</span>}
      </button>
      {copied && (
        <span role="status" className="tooltip">
          {t("common.copied")}
        </span>
      )}
    </span>
  );
}

function fallbackCopy(text: string): void {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    document.execCommand("copy");
  } catch {
    /* nothing more we can do */
  }
  area.remove();
}
