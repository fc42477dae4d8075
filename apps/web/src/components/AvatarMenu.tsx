import { useEffect, useRef, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { PrefetchLink } from "./PrefetchLink";
import { useSession } from "../features/session/session-context";
import { useOfflineAnswers } from "../features/offline/offline-context";
import { SignOutPrompt } from "../features/offline/SignOutPrompt";

/** Documentation of the SDK and concepts Tessera is compatible with. */
export const DOCS_URL = "https://docs.argilla.io/latest/";

export const AvatarMenu = observer(function AvatarMenu() {
  const { t } = useTranslation();
  const session = useSession();
  const offline = useOfflineAnswers();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent) {
        if (event.key === "Escape") {
          setOpen(false);
          ref.current?.querySelector<HTMLElement>(".avatar")?.focus();
        }
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
          const index = items.indexOf(document.activeElement as HTMLElement);
          const next = items[(index + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
          if (next) {
            event.preventDefault();
            next.focus();
          }
        }
      } else if (!ref.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, [open]);

  const user = session.user;
  if (!user) return null;
  return (
    <div className="avatar-menu" ref={ref}>
      <button
        type="button"
        className="avatar"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t("user.menu")}
        onClick={() => setOpen(!open)}
      >
        {user.initials}
      </button>
      {open && (
        <div className="avatar-menu__panel" role="menu">
          <p className="avatar-menu__name">
            {user.fullName || user.username}
            <span>{user.role}</span>
          </p>
          <PrefetchLink role="menuitem" to="/user-settings" onClick={() => setOpen(false)}>
            {t("user.mySettings")}
          </PrefetchLink>
          <a role="menuitem" href={DOCS_URL} target="_blank" rel="noreferrer noopener">
            {t("user.viewDocs")}
          </a>
          <button
            role="menuitem"
            type="button"
            onClick={() => {
              setOpen(false);
              void offline.requestSignOut(() => {
                session.logout();
                navigate("/sign-in");
              });
            }}
          >
            {t("user.logOut")}
          </button>
        </div>
      )}
      <SignOutPrompt />
    </div>
  );
});
