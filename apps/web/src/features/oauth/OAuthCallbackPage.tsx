import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate, useParams } from "react-router";
import { SignInWithOAuthUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useSession } from "../session/session-context";
import { AuthLayout } from "../../layouts/AuthLayout";
import { PageLoading } from "../../components/PageLoading";
import { OAuthCallbackViewModel } from "./oauth-callback-view-model";
import { providerDisplayName } from "./browser-navigator";

/** /oauth/:provider/callback: exchanges the provider's code for a token, then lands on redirectTo or home. */
export const OAuthCallbackPage = observer(function OAuthCallbackPage() {
  const { t } = useTranslation();
  const { provider = "huggingface" } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const session = useSession();
  const signIn = useResolve(SignInWithOAuthUseCase);
  const vm = useMemo(() => new OAuthCallbackViewModel(signIn, (user) => session.setUser(user)), [signIn, session]);
  useEffect(() => {
    void vm.exchange(provider, location.search).then((target) => {
      if (target) navigate(target, { replace: true });
    });
  }, [vm, provider, location.search, navigate]);

  const name = providerDisplayName(provider);
  if (vm.status === "failed") {
    return (
      <AuthLayout title={t("oauth.failedTitle")}>
        <p className="form-error" role="alert">
          {t("oauth.failed", { provider: name })}
        </p>
        <Link className="button button--primary" to="/sign-in?omitCTA=true">
          {t("oauth.backToSignIn")}
        </Link>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title={t("oauth.signingIn", { provider: name })}>
      <PageLoading />
    </AuthLayout>
  );
});
