import { Link } from "react-router";
import { useTranslation } from "react-i18next";
import { AvatarMenu } from "./AvatarMenu";

export function AppHeader() {
  const { t } = useTranslation();
  return (
    <header className="app-header">
      <Link to="/" className="app-header__brand"><img src="/favicon.svg" alt="" width={28} height={28} /> {t("brand.name")}</Link>
      <AvatarMenu />
    </header>
  );
}
