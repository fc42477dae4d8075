import { useTranslation } from "react-i18next";
import { DefaultLayout } from "../../layouts/DefaultLayout";
import { PageLoading } from "../../components/PageLoading";

/** OAuth callback route; the token exchange is wired by the hosted-space/OAuth work. */
export function OAuthCallbackPage() {
  const { t } = useTranslation();
  return <DefaultLayout><h1 className="visually-hidden">{t("signIn.title")}</h1><PageLoading /></DefaultLayout>;
}
