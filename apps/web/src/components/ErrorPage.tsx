import { useTranslation } from "react-i18next";
import { Link, isRouteErrorResponse, useRouteError } from "react-router";

/** Spec section 2 error screen: large status code, pill, title, message, 'Back to home page'. */
export function ErrorPage({ status: forced }: { status?: number }) {
  const { t } = useTranslation();
  const error = useRouteError();
  const status = forced ?? (isRouteErrorResponse(error) ? error.status : 500);
  const notFound = status === 404;
  return (
    <main className="error-page">
      <p className="error-page__code">{status}</p>
      <span className="pill">{notFound ? t("errors.notFound") : t("errors.somethingWrong")}</span>
      <h1>{notFound ? t("errors.notFound") : t("errors.somethingWrong")}</h1>
      <p>{t("errors.somethingWrong")} {t("errors.cantFind")}</p>
      <Link className="button button--primary" to="/">{t("errors.backHome")}</Link>
    </main>
  );
}
