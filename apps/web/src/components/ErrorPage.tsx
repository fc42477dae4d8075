import { useTranslation } from "react-i18next";
import { Link, isRouteErrorResponse, useRouteError } from "react-router";
import { DefaultLayout } from "../layouts/DefaultLayout";

/** The status of a load error: statusCode, status or the response's status, else 500 (spec section 8). */
export function errorStatus(error: unknown): number {
  if (isRouteErrorResponse(error)) return error.status;
  if (error && typeof error === "object") {
    const e = error as { statusCode?: unknown; status?: unknown; response?: { status?: unknown } };
    for (const candidate of [e.statusCode, e.status, e.response?.status])
      if (typeof candidate === "number" && candidate >= 400) return candidate;
  }
  return 500;
}

/** Spec section 2 error screen: large status code, pill, title, message, the two texts and 'Back to home page'. */
export function ErrorPage({ status: forced }: { status?: number }) {
  const { t } = useTranslation();
  const error = useRouteError();
  const status = forced ?? errorStatus(error);
  const notFound = status === 404;
  const message = notFound ? t("errors.notFound") : error instanceof Error && error.message ? error.message : t("errors.unknown");
  return (
    <DefaultLayout className="error-page">
      <p className="error-page__code" aria-hidden="true">
        {status}
      </p>
      <span className="pill">{t("errors.pill", { status })}</span>
      <h1>{message}</h1>
      <p>{t("errors.somethingWrong")}</p>
      <p>{t("errors.cantFind")}</p>
      <Link className="button button--primary" to="/">
        {t("errors.backHome")}
      </Link>
    </DefaultLayout>
  );
}
