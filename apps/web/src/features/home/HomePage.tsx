import { useEffect, useMemo, type FormEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { GetDatasetProgressUseCase, ListDatasetsUseCase } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { useToasts } from "../../app/app-services";
import { paths } from "../../app/routes";
import { useSession } from "../session/session-context";
import { HomeLayout } from "../../layouts/HomeLayout";
import { PrefetchLink } from "../../components/PrefetchLink";
import { ProgressBar } from "../../components/ProgressBar";
import { CopyButton } from "../../components/CopyButton";
import { HomeViewModel, pythonSnippet, type SortKey } from "./home-view-model";
import { FileImportCard } from "../transfer/upload/FileImportCard";

export const EXAMPLE_DATASETS = ["stanfordnlp/imdb", "fancyzhx/ag_news", "openai/gsm8k", "HuggingFaceH4/ultrafeedback_binarized"];
export const GUIDES = [
  { key: "configure", href: "https://docs.argilla.io/latest/how_to_guides/dataset/" },
  { key: "annotate", href: "https://docs.argilla.io/latest/how_to_guides/annotate/" },
  { key: "sdk", href: "https://docs.argilla.io/latest/how_to_guides/record/" },
] as const;
export const DEMO_URL = "https://huggingface.co/spaces/argilla/argilla-template-space";

export function formatDate(iso: string, locale: string): string {
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(locale, { year: "numeric", month: "short", day: "numeric" });
}

export const HomePage = observer(function HomePage() {
  const { t } = useTranslation();
  const session = useSession();
  const list = useResolve(ListDatasetsUseCase);
  const progress = useResolve(GetDatasetProgressUseCase);
  const vm = useMemo(() => new HomeViewModel(list, progress), [list, progress]);
  useEffect(() => {
    void vm.load();
  }, [vm]);
  const admin = session.user?.isAdminOrOwner ?? false;

  return (
    <HomeLayout sidebar={<HomeSidebar vm={vm} admin={admin} />} sidebarLabel={t("home.sidebarLabel")}>
      <div className="home-heading">
        <h1>{t("home.yourDatasets")}</h1>
        {vm.datasets.length > 0 && (
          <div className="search-box">
            <label htmlFor="dataset-search" className="visually-hidden">
              {t("home.search")}
            </label>
            <input
              id="dataset-search"
              type="search"
              placeholder={t("home.search")}
              value={vm.search}
              onChange={(e) => vm.setSearch(e.target.value)}
            />
          </div>
        )}
      </div>
      {vm.loading && (
        <p aria-busy="true" className="muted">
          {t("common.loading")}
        </p>
      )}
      {vm.failed && (
        <p role="alert" className="form-error">
          {t("home.loadError")}
        </p>
      )}
      {vm.isEmpty && (
        <section className="empty-state" aria-live="polite">
          <h2>{t("home.noneYet")}</h2>
          <p>{admin ? t("home.emptyAdmin") : t("home.emptyAnnotator")}</p>
        </section>
      )}
      {vm.datasets.length > 0 && <DatasetTable vm={vm} />}
    </HomeLayout>
  );
});

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: "name", label: "home.columns.dataset" },
  { key: "workspace", label: "home.columns.workspace" },
  { key: "createdAt", label: "home.columns.created" },
  { key: "updatedAt", label: "home.columns.updated" },
  { key: "progress", label: "home.columns.progress" },
];

const DatasetTable = observer(function DatasetTable({ vm }: { vm: HomeViewModel }) {
  const { t, i18n } = useTranslation();
  return (
    <>
      <p className="muted" role="status">
        {t("home.found", { count: vm.visible.length })}
      </p>
      <div className="table-scroll">
        <table className="dataset-table">
          <thead>
            <tr>
              {COLUMNS.map((column) => {
                const active = vm.sortKey === column.key;
                return (
                  <th key={column.key} scope="col" aria-sort={active ? (vm.sortDirection === "asc" ? "ascending" : "descending") : "none"}>
                    <button type="button" className="sort-button" onClick={() => vm.sortBy(column.key)}>
                      {t(column.label)}
                      <span aria-hidden="true" className="sort-button__icon">
                        {active ? (vm.sortDirection === "asc" ? "▲" : "▼") : "↕"}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {vm.visible.map((d) => {
              const p = vm.progress.get(d.id);
              return (
                <tr key={d.id}>
                  <th scope="row">
                    <PrefetchLink to={paths.annotation(d.id)}>{d.name}</PrefetchLink>
                  </th>
                  <td data-label={t("home.columns.workspace")}>{d.workspaceName}</td>
                  <td data-label={t("home.columns.created")}>{formatDate(d.createdAt, i18n.language)}</td>
                  <td data-label={t("home.columns.updated")}>{formatDate(d.updatedAt, i18n.language)}</td>
                  <td className="dataset-table__progress" data-label={t("home.columns.progress")}>
                    {p === "loading" || p === undefined ? (
                      <span className="skeleton" aria-label={t("common.loading")} />
                    ) : p === "failed" ? (
                      <span className="muted">—</span>
                    ) : (
                      <ProgressBar progress={p} />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
});

const HomeSidebar = observer(function HomeSidebar({ vm, admin }: { vm: HomeViewModel; admin: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const session = useSession();
  const toasts = useToasts();
  // The key is known only right after it was generated (the server stores a digest): otherwise a placeholder.
  const snippet = pythonSnippet(window.location.origin, session.user?.apiKey ?? t("home.python.keyPlaceholder"));
  const onImport = (event: FormEvent) => {
    event.preventDefault();
    if (vm.importPath) void navigate(vm.importPath);
  };
  return (
    <>
      {admin && (
        <section className="card" aria-labelledby="hub-import-title">
          <h2 id="hub-import-title">{t("home.hub.title")}</h2>
          <p>{t("home.hub.text")}</p>
          <form onSubmit={onImport} className="hub-import">
            <label htmlFor="hub-repo-id" className="visually-hidden">
              {t("home.hub.label")}
            </label>
            <input
              id="hub-repo-id"
              type="text"
              placeholder={t("home.hub.placeholder")}
              value={vm.repoId}
              onChange={(e) => vm.setRepoId(e.target.value)}
            />
            <button type="submit" className="button button--primary" disabled={!vm.importPath}>
              {t("home.hub.button")}
            </button>
          </form>
        </section>
      )}
      {admin && <FileImportCard />}
      {admin && (
        <section className="card" aria-labelledby="python-import-title">
          <div className="card__title-row">
            <h2 id="python-import-title">{t("home.python.title")}</h2>
            <CopyButton
              text={snippet}
              label={t("home.python.copy")}
              onCopied={() => toasts.notify({ message: t("common.copied"), type: "success" })}
            />
          </div>
          <p>{t("home.python.text")}</p>
          <pre className="code" tabIndex={0} aria-label={t("home.python.title")}>
            <code>{snippet}</code>
          </pre>
        </section>
      )}
      {admin && (
        <section className="card" aria-labelledby="examples-title">
          <h2 id="examples-title">{t("home.examples.title")}</h2>
          <p>{t("home.examples.text")}</p>
          <ul className="link-list">
            {EXAMPLE_DATASETS.map((repo) => (
              <li key={repo}>
                <PrefetchLink to={paths.newDataset(repo)}>{repo}</PrefetchLink>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="card" aria-labelledby="guides-title">
        <h2 id="guides-title">{t("home.guides.title")}</h2>
        <p>{t("home.guides.text")}</p>
        <ul className="link-list">
          {GUIDES.map((g) => (
            <li key={g.key}>
              <a href={g.href} target="_blank" rel="noreferrer noopener">
                {t(`home.guides.${g.key}`)}
              </a>
            </li>
          ))}
          <li>
            <a href={DEMO_URL} target="_blank" rel="noreferrer noopener">
              {t("home.demo")}
            </a>
          </li>
        </ul>
      </section>
    </>
  );
});
