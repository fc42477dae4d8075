import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { LoadOAuthProvidersUseCase, StartOAuthSignInUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { OAuthProvidersViewModel } from "./oauth-providers-view-model";
import { providerDisplayName, windowNavigator } from "./browser-navigator";

/** One 'Sign in with …' button per configured OAuth provider; nothing when none is configured. */
export const OAuthProviderButtons = observer(function OAuthProviderButtons() {
  const { t } = useTranslation();
  const location = useLocation();
  const load = useResolve(LoadOAuthProvidersUseCase);
  const start = useResolve(StartOAuthSignInUseCase);
  const vm = useMemo(() => new OAuthProvidersViewModel(load, start, windowNavigator), [load, start]);
  useEffect(() => {
    void vm.load();
  }, [vm]);
  if (vm.providers.length === 0) return null;
  return (
    <div className="oauth-providers">
      <p className="oauth-providers__or">{t("oauth.or")}</p>
      {vm.providers.map((p) => (
        <button
          key={p.name}
          type="button"
          className="button button--secondary oauth-providers__button"
          onClick={() => vm.signInWith(p.name, location.search)}
        >
          {t("oauth.signInWith", { provider: providerDisplayName(p.name) })}
        </button>
      ))}
    </div>
  );
});
