import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ListDatasetsUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useSession } from "../session/session-context";
import { AppHeader } from "../../components/AppHeader";
import { HomeViewModel } from "./home-view-model";

export const HomePage = observer(function HomePage() {
  const { t, i18n } = useTranslation();
  const session = useSession();
  const list = useResolve(ListDatasetsUseCase);
  const vm = useMemo(() => new HomeViewModel(list), [list]);
  useEffect(() => { void vm.load(); }, [vm]);
  const date = (iso: string) => new Date(`${iso}Z`).toLocaleDateString(i18n.language, { year: "numeric", month: "short", day: "numeric" });

  return (
    <div className="home-layout">
      <AppHeader />
      <main className="home-content">
        <h1>{t("home.yourDatasets")}</h1>
        {vm.loading && <p aria-busy="true">{t("common.loading")}</p>}
        {vm.failed && <p role="alert">{t("home.loadError")}</p>}
        {vm.isEmpty && (
          <section className="empty-state" aria-live="polite">
            <h2>{t("home.noneYet")}</h2>
            <p>{session.user?.isAdminOrOwner ? t("home.emptyAdmin") : t("home.emptyAnnotator")}</p>
          </section>
        )}
        {vm.datasets.length > 0 && (
          <table className="dataset-table">
            <thead>
              <tr>
                <th scope="col">{t("home.columns.dataset")}</th>
                <th scope="col">{t("home.columns.workspace")}</th>
                <th scope="col">{t("home.columns.created")}</th>
                <th scope="col">{t("home.columns.updated")}</th>
              </tr>
            </thead>
            <tbody>
              {vm.datasets.map((d) => (
                <tr key={d.id}>
                  <td><Link to={`/dataset/${d.id}/annotation-mode`}>{d.name}</Link></td>
                  <td>{d.workspaceName}</td>
                  <td>{date(d.createdAt)}</td>
                  <td>{date(d.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </main>
    </div>
  );
});
