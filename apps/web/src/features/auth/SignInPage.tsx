import { useMemo, type FormEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { SignInUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useSession } from "../session/session-context";
import { SignInViewModel } from "./sign-in-view-model";
import { redirectTarget } from "./redirect";
import { AuthLayout } from "../../layouts/AuthLayout";
import { OAuthProviderButtons } from "../oauth/OAuthProviderButtons";

export const SignInPage = observer(function SignInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const session = useSession();
  const signIn = useResolve(SignInUseCase);
  const vm = useMemo(() => new SignInViewModel(signIn, (user) => session.setUser(user)), [signIn, session]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (await vm.submit()) navigate(redirectTarget(location.search), { replace: true });
  };

  return (
    <AuthLayout
      title={t("signIn.title")}
      subtitle={t("signIn.subtitle")}
      footer={<p className="auth-form__text">{t("signIn.firstTime")}</p>}
    >
      <form onSubmit={onSubmit} noValidate aria-labelledby="auth-title" className="auth-form__form">
        <label htmlFor="username">{t("signIn.username")}</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          autoFocus
          value={vm.username}
          onChange={(e) => vm.setUsername(e.target.value)}
        />
        <label htmlFor="password">{t("signIn.password")}</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={vm.password}
          onChange={(e) => vm.setPassword(e.target.value)}
        />
        {vm.errorKey && (
          <p className="form-error" role="alert">
            {t(vm.errorKey)}
          </p>
        )}
        <button type="submit" className="button button--primary" disabled={!vm.canSubmit}>
          {vm.submitting ? t("signIn.submitting") : t("signIn.submit")}
        </button>
      </form>
      <OAuthProviderButtons />
    </AuthLayout>
  );
});
