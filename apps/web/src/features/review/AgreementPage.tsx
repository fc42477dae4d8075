import { useEffect, useMemo } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useParams } from "react-router";
import { GetAgreementUseCase, mayReview, type AgreementMetric, type QuestionAgreementReport } from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { paths } from "../../app/routes";
import { InternalPageLayout } from "../../layouts";
import { useSession } from "../session/session-context";
import { AgreementViewModel, formatFigure, type RecordStatusFilter } from "./agreement-view-model";
import { ReviewProgressBar } from "./ReviewProgressBar";
import { MetadataFiltersNote, metadataFiltersOf } from "./metadata-filters";
import "./review.css";

/** The Agreement screen of a dataset (owners and admins): figures per question, the annotator-pair matrix, the records of lowest agreement. */
export const AgreementPage = observer(function AgreementPage() {
  const { t } = useTranslation();
  const { id = "" } = useParams();
  const location = useLocation();
  const session = useSession();
  const getAgreement = useResolve(GetAgreementUseCase);
  const allowed = session.user ? mayReview(session.user.role) : false;
  const vm = useMemo(() => new AgreementViewModel(id, getAgreement, metadataFiltersOf(id, location.search)), [id]);
  useEffect(() => {
    if (allowed) void vm.load();
  }, [vm, allowed]);

  const breadcrumbs = [{ label: t("breadcrumbs.home"), to: "/" }, { label: t("review.agreement.title") }];
  if (!allowed) {
    return (
      <InternalPageLayout breadcrumbs={breadcrumbs}>
        <p role="alert" className="form-error">
          {t("review.forbidden")}
        </p>
      </InternalPageLayout>
    );
  }
  const report = vm.report;
  return (
    <InternalPageLayout
      breadcrumbs={breadcrumbs}
      pageHeader={
        <div className="review-header">
          <h1>{t("review.agreement.title")}</h1>
          <nav className="review-header__links" aria-label={t("review.agreement.title")}>
            <Link className="button" to={paths.annotation(id)}>
              {t("review.links.annotate")}
            </Link>
            <Link className="button button--primary" to={paths.review(id)}>
              {t("review.agreement.reviewDisagreements")}
            </Link>
          </nav>
        </div>
      }
    >
      <p className="muted">{t("review.agreement.intro")}</p>
      <AgreementFilters vm={vm} />
      {vm.loading && (
        <p aria-busy="true" className="muted">
          {t("review.agreement.loading")}
        </p>
      )}
      {vm.failed && (
        <p role="alert" className="form-error">
          {t("review.agreement.loadError")}
        </p>
      )}
      {report && (
        <div className="agreement" aria-busy={vm.loading}>
          <p>{t("review.agreement.summary", { records: report.records, responses: report.responses })}</p>
          <ReviewProgressBar reviewed={report.review.reviewed} total={report.review.needingReview} />
          <PairMatrix vm={vm} />
          <h2>{t("review.agreement.questions")}</h2>
          <div className="agreement__cards">
            {report.questions.map((q) => (
              <QuestionCard key={q.name} question={q} datasetId={id} />
            ))}
          </div>
          <section className="panel" aria-labelledby="lowest-title">
            <h2 id="lowest-title">{t("review.agreement.lowest.title")}</h2>
            {report.lowest.length === 0 ? (
              <p className="muted">{t("review.agreement.lowest.none")}</p>
            ) : (
              <ol className="agreement__lowest">
                {report.lowest.map((l) => (
                  <li key={l.recordId}>
                    <Link to={paths.review(id, { record: l.recordId })}>{t("review.agreement.lowest.open")}</Link>{" "}
                    <span>
                      {t("review.agreement.lowest.item", {
                        percent: Math.round(l.agreement * 100),
                        questions: l.questions.map((name) => report.questions.find((q) => q.name === name)?.title ?? name).join(", "),
                      })}
                    </span>
                    {l.validated && <span className="status-badge status-badge--validated">{t("review.validated")}</span>}
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
      )}
    </InternalPageLayout>
  );
});

const AgreementFilters = observer(function AgreementFilters({ vm }: { vm: AgreementViewModel }) {
  const { t } = useTranslation();
  return (
    <form className="agreement__filters" aria-label={t("review.agreement.filters.label")} onSubmit={(e) => e.preventDefault()}>
      {vm.annotators.length > 0 && (
        <fieldset>
          <legend>{t("review.agreement.filters.annotators")}</legend>
          {vm.annotators.map((a) => (
            <label key={a.id} className="agreement__annotator">
              <input type="checkbox" checked={vm.selectedUsers.includes(a.id)} onChange={() => vm.toggleUser(a.id)} /> {a.username}
            </label>
          ))}
        </fieldset>
      )}
      <label>
        {t("review.agreement.filters.status")}{" "}
        <select value={vm.status} onChange={(e) => vm.setStatus(e.target.value as RecordStatusFilter)}>
          <option value="">{t("review.agreement.filters.anyStatus")}</option>
          <option value="pending">{t("review.agreement.filters.pending")}</option>
          <option value="completed">{t("review.agreement.filters.completed")}</option>
        </select>
      </label>
      <MetadataFiltersNote count={vm.metadataFilters.length} onDrop={() => vm.dropMetadata()} />
    </form>
  );
});

function FigureValue({
  metric,
  figure,
}: {
  metric: AgreementMetric;
  figure: { value: number | null; records: number; responses: number } | undefined;
}) {
  const { t, i18n } = useTranslation();
  const shown = formatFigure(metric, figure?.value, i18n.language);
  return (
    <div className="figure" data-metric={metric}>
      <dt>{t(`review.metrics.${metric}`)}</dt>
      <dd>
        <strong>{shown ?? t("review.agreement.undefined")}</strong>{" "}
        <span className="muted">{t("review.agreement.basis", { records: figure?.records ?? 0, responses: figure?.responses ?? 0 })}</span>
      </dd>
    </div>
  );
}

function QuestionCard({ question, datasetId }: { question: QuestionAgreementReport; datasetId: string }) {
  const { t } = useTranslation();
  const metrics = Object.keys(question.figures) as AgreementMetric[];
  const ordered = [question.primaryMetric, ...metrics.filter((m) => m !== question.primaryMetric)];
  return (
    <section className="panel agreement__card" aria-labelledby={`q-${question.name}`} data-question={question.name}>
      <h3 id={`q-${question.name}`}>{question.title}</h3>
      <dl>
        {ordered.map((m) => (
          <FigureValue key={m} metric={m} figure={question.figures[m]} />
        ))}
      </dl>
      {question.type === "text" && <p className="muted">{t("review.agreement.textNote")}</p>}
      {question.lowest.length > 0 && (
        <p>
          <Link to={paths.review(datasetId, { question: question.name })}>{t("review.agreement.reviewDisagreements")}</Link>
        </p>
      )}
    </section>
  );
}

const PairMatrix = observer(function PairMatrix({ vm }: { vm: AgreementViewModel }) {
  const { t, i18n } = useTranslation();
  const matrix = vm.matrix;
  const questions = vm.report?.questions ?? [];
  if (!matrix) return null;
  const metric = matrix.question.pairMetric;
  return (
    <section className="panel" aria-labelledby="matrix-title">
      <h2 id="matrix-title">{t("review.agreement.matrix.title")}</h2>
      <label>
        {t("review.agreement.matrix.question")}{" "}
        <select value={matrix.question.name} onChange={(e) => vm.setMatrixQuestion(e.target.value)}>
          {questions.map((q) => (
            <option key={q.name} value={q.name}>
              {q.title}
            </option>
          ))}
        </select>
      </label>
      {matrix.users.length < 2 ? (
        <p className="muted">{t("review.agreement.matrix.none")}</p>
      ) : (
        <div className="agreement__matrix-wrap">
          <table className="agreement__matrix">
            <caption>{t("review.agreement.matrix.caption", { metric: t(`review.metrics.${metric}`) })}</caption>
            <thead>
              <tr>
                <td />
                {matrix.users.map((u) => (
                  <th key={u} scope="col">
                    {vm.usernameOf(u)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {matrix.users.map((a) => (
                <tr key={a}>
                  <th scope="row">{vm.usernameOf(a)}</th>
                  {matrix.users.map((b) => {
                    const cell = a === b ? null : matrix.cell(a, b);
                    const shown = cell ? formatFigure(metric, cell.figure?.value, i18n.language) : null;
                    return (
                      <td key={b} className={a === b ? "agreement__self" : undefined}>
                        {cell && (
                          <span
                            title={t("review.agreement.matrix.cell", {
                              value: shown ?? t("review.agreement.undefined"),
                              records: cell.records,
                            })}
                          >
                            {shown ?? "–"}
                          </span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
});
