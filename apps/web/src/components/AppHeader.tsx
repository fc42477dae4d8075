import type { ReactNode } from "react";
import { Link } from "react-router";
import { useTranslation } from "react-i18next";
import { AvatarMenu } from "./AvatarMenu";
import { OutboxStatus } from "../features/offline/OutboxStatus";

/** The app header: brand link home, optional breadcrumbs (children), optional actions, avatar menu. */
export function AppHeader({ children, actions }: { children?: ReactNode; actions?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <header className="app-header">
      <a className="skip-link" href="#main">
        {t("common.skipToContent")}
      </a>
      <Link to="/" className="app-header__brand" aria-label={t("brand.homeLink")}>
        <img src="/favicon.svg" alt="" width={28} height={28} />
        <span>{t("brand.name")}</span>
      </Link>
      <div className="app-header__trail">{children}</div>
      {actions && <div className="app-header__actions">{actions}</div>}
      <OutboxStatus />
      <AvatarMenu />
    </header>
  );
}
