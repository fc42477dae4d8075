import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { GetEnvironmentUseCase, LoadOAuthProvidersUseCase, StartOAuthSignInUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { AuthLayout } from "../../layouts/AuthLayout";
import { PageLoading } from "../../components/PageLoading";
import { OAuthProvidersViewModel } from "./oauth-providers-view-model";
import { HF_PROVIDER, WelcomeViewModel } from "./welcome-view-model";
import { windowNavigator } from "./browser-navigator";

/**
 * /welcome-hf-sign-in on the hub-hosted space: the space and its owner, 'Sign in with Hugging Face'
 * and 'Sign in with username'. Without the hub provider it falls back to the normal sign-in page.
 */
export const WelcomeHfSignInPage = observer(function WelcomeHfSignInPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const environment = useResolve(GetEnvironmentUseCase);
  const load = useResolve(LoadOAuthProvidersUseCase);
  const start = useResolve(StartOAuthSignInUseCase);
  const vm = useMemo(
    () => new WelcomeViewModel(environment, new OAuthProvidersViewModel(load, start, windowNavigator)),
    [environment, load, start],
  );
  const usernameSignIn = `/sign-in?${new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(location.search)), omitCTA: "true" }).toString()}`;
  useEffect(() => {
    void vm.load().then((offered) => {
      if (!offered) navigate(usernameSignIn, { replace: true });
    });
  }, [vm, navigate, usernameSignIn]);

  if (!vm.loaded) return <PageLoading />;
  return (
    <AuthLayout
      title={t("welcome.title", { space: vm.spaceName })}
      subtitle={t("welcome.subtitle")}
      footer={vm.owner ? <p className="auth-form__text">{t("oauth.spaceOwner", { owner: vm.owner })}</p> : undefined}
    >
      <div className="oauth-providers">
        <button type="button" className="button button--primary" onClick={() => vm.providers.signInWith(HF_PROVIDER, location.search)}>
          {t("oauth.signInWith", { provider: "Hugging Face" })}
        </button>
        <Link className="button button--secondary" to={usernameSignIn}>
          {t("welcome.signInWithUsername")}
        </Link>
      </div>
    </AuthLayout>
  );
});
