import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { GetEnvironmentUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { AuthLayout } from "../../layouts/AuthLayout";

/** Sign-in welcome page on the hub-hosted space (the OAuth sign-in itself belongs to the hosted-space work). */
export function WelcomeHfSignInPage() {
  const { t } = useTranslation();
  const environment = useResolve(GetEnvironmentUseCase);
  const [space, setSpace] = useState("");
  useEffect(() => { void environment.execute().then((env) => setSpace(env.hostedSpace?.title ?? "")); }, [environment]);
  return (
    <AuthLayout title={t("welcome.title", { space })} subtitle={t("welcome.subtitle")}>
      <Link className="button button--primary" to="/sign-in?omitCTA=true">{t("welcome.signInWithUsername")}</Link>
    </AuthLayout>
  );
}
