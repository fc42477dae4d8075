import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { ListMyWorkspacesUseCase, RegenerateApiKeyUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useAppServices } from "../../app/app-services";
import { useSession } from "../session/session-context";
import { InternalPageLayout } from "../../layouts/InternalPageLayout";
import { CopyButton } from "../../components/CopyButton";
import { THEME_PREFERENCES } from "../../theme/theme-view-model";
import { SUPPORTED_LOCALES, type Locale } from "../../i18n/i18n";
import { UserSettingsViewModel } from "./user-settings-view-model";

/** Native names of the UI languages (not translated on purpose: people look for their own language). */
const LANGUAGE_NAMES: Record<Locale, string> = { en: "English", de: "Deutsch", es: "Español" };

export const UserSettingsPage = observer(function UserSettingsPage() {
  const { t } = useTranslation();
  const session = useSession();
  const { theme, language } = useAppServices();
  const list = useResolve(ListMyWorkspacesUseCase);
  const regenerate = useResolve(RegenerateApiKeyUseCase);
  const vm = useMemo(() => new UserSettingsViewModel(list, regenerate), [list, regenerate]);
  useEffect(() => {
    void vm.load();
  }, [vm]);
  const user = session.user;

  return (
    <InternalPageLayout
      breadcrumbs={[
        { label: t("breadcrumbs.home"), to: "/" },
        { label: t("breadcrumbs.settings") },
        { label: t("breadcrumbs.mySettings") },
      ]}
      pageHeader={<h1>{t("userSettings.title")}</h1>}
    >
      {user && (
        <div className="settings-grid">
          <section className="card" aria-labelledby="profile-title">
            <h2 id="profile-title">{t("userSettings.profile")}</h2>
            <dl className="field-list">
              <dt>{t("userSettings.username")}</dt>
              <dd>{user.username}</dd>
              <dt>{t("userSettings.name")}</dt>
              <dd>{user.firstName || "—"}</dd>
              <dt>{t("userSettings.surname")}</dt>
              <dd>{user.lastName || "—"}</dd>
              <dt>{t("userSettings.role")}</dt>
              <dd>{user.role}</dd>
              <dt>{t("userSettings.workspaces")}</dt>
              <dd>
                {vm.loadingWorkspaces ? (
                  t("common.loading")
                ) : vm.workspacesFailed ? (
                  t("userSettings.workspacesError")
                ) : vm.workspaces.length === 0 ? (
                  "—"
                ) : (
                  <ul className="chips" aria-label={t("userSettings.workspaces")}>
                    {vm.workspaces.map((w) => (
                      <li key={w.id} className="chip">
                        {w.name}
                      </li>
                    ))}
                  </ul>
                )}
              </dd>
            </dl>
          </section>

          <section className="card" aria-labelledby="api-key-title">
            <h2 id="api-key-title">{t("userSettings.apiKey")}</h2>
            <p>{t("userSettings.apiKeyText")}</p>
            {user.apiKey ? (
              <>
                <p>{t("userSettings.apiKeyNew")}</p>
                <div className="api-key">
                  <code className="api-key__value" aria-label={t("userSettings.apiKey")}>
                    {user.apiKey}
                  </code>
                  <CopyButton text={user.apiKey} label={t("userSettings.copyApiKey")} />
                </div>
              </>
            ) : (
              <p>{t("userSettings.apiKeyHidden")}</p>
            )}
            <button
              type="button"
              className="button button--secondary"
              disabled={vm.regenerating}
              onClick={() => void vm.regenerateApiKey(user, (u) => session.setUser(u))}
            >
              {t("userSettings.regenerateApiKey")}
            </button>
            {vm.regenerateFailed && <p role="alert">{t("userSettings.regenerateApiKeyError")}</p>}
          </section>

          <section className="card" aria-labelledby="appearance-title">
            <h2 id="appearance-title">{t("userSettings.appearance")}</h2>
            <fieldset className="radio-group">
              <legend>{t("userSettings.theme")}</legend>
              {THEME_PREFERENCES.map((value) => (
                <label key={value} className="radio">
                  <input
                    type="radio"
                    name="theme"
                    value={value}
                    checked={theme.preference === value}
                    onChange={() => theme.setPreference(value)}
                  />
                  <span>{t(`theme.${value}`)}</span>
                </label>
              ))}
            </fieldset>
            <div className="select-field">
              <label htmlFor="language-select">{t("userSettings.language")}</label>
              <select id="language-select" value={language.locale} onChange={(e) => void language.setLocale(e.target.value as Locale)}>
                {SUPPORTED_LOCALES.map((l) => (
                  <option key={l} value={l} lang={l}>
                    {LANGUAGE_NAMES[l]}
                  </option>
                ))}
              </select>
            </div>
          </section>
        </div>
      )}
    </InternalPageLayout>
  );
});
