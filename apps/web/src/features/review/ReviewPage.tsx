import { useEffect, useMemo, useRef } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useParams } from "react-router";
import {
  ClearFinalAnswerUseCase,
  GetReviewItemUseCase,
  ListReviewRecordsUseCase,
  LoadDatasetWithSettingsUseCase,
  SubmitFinalAnswerUseCase,
  mayReview,
  type DatasetSettings,
  type Question,
} from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { paths } from "../../app/routes";
import { AnnotationLayout } from "../../layouts";
import { parseQuery } from "../../shared/query-params";
import { useSession } from "../session/session-context";
import { RecordFields } from "../annotation/fields/RecordFields";
import { QuestionsForm, focusNewRecord } from "../annotation/questions/QuestionsForm";
import { ALL_RECORDS, ReviewViewModel, type ReviewShow } from "./review-view-model";
import { ReviewProgressBar } from "./ReviewProgressBar";
import { formatAnswer } from "./format-answer";
import "../annotation/annotation.css";
import { MetadataFiltersNote, metadataFiltersOf } from "./metadata-filters";
import "./review.css";

const isEditable = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.tagName === "TEXTAREA" ||
    el.tagName === "SELECT" ||
    (el.tagName === "INPUT" && !["checkbox", "radio", "button"].includes((el as HTMLInputElement).type)) ||
    el.isContentEditable);

/** Review mode of the annotation page (owners and admins): disagreements, every annotator's response side by side, the final answer. */
export const ReviewPage = observer(function ReviewPage() {
  const { t } = useTranslation();
  const { id = "" } = useParams();
  const location = useLocation();
  const session = useSession();
  const allowed = session.user ? mayReview(session.user.role) : false;
  const useCases = {
    list: useResolve(ListReviewRecordsUseCase),
    get: useResolve(GetReviewItemUseCase),
    submit: useResolve(SubmitFinalAnswerUseCase),
    clear: useResolve(ClearFinalAnswerUseCase),
  };
  const loadSettings = useResolve(LoadDatasetWithSettingsUseCase);
  const vm = useMemo(() => {
    const query = parseQuery(location.search);
    const one = (k: string) => {
      const v = query[k];
      return Array.isArray(v) ? v[0] : v;
    };
    const record = one("record");
    const question = one("question");
    return new ReviewViewModel(id, useCases, {
      ...(record ? { record } : {}),
      ...(question ? { question } : {}),
      metadataFilters: metadataFiltersOf(id, location.search),
    });
  }, [id]);
  const settingsRef = useRef<DatasetSettings | null>(null);
  const formRef = useRef<HTMLDivElement>(null);
  const navRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!allowed) return;
    let live = true;
    loadSettings
      .execute(id, { isAdminOrOwner: true })
      .then((s) => {
        if (!live) return;
        settingsRef.current = s;
        vm.setSettings(s);
      })
      .catch(() => undefined);
    void vm.load();
    return () => {
      live = false;
    };
  }, [vm, allowed]);

  // shortcuts as in the focus view: Enter submits, arrows move between records
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isEditable(e.target) || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "Enter") {
        e.preventDefault();
        void vm.submit();
      } else if (e.key === "ArrowRight") {
        e.preventDefault();
        vm.next();
      } else if (e.key === "ArrowLeft") {
        e.preventDefault();
        vm.previous();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [vm]);

  // a new record takes the keyboard: its first question
  const recordId = vm.record?.id;
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && !formRef.current?.contains(active) && !active.closest?.(".record-nav")) return;
    focusNewRecord(formRef.current, navRef.current);
  }, [recordId]);

  const dataset = settingsRef.current?.dataset;
  const breadcrumbs = [
    { label: t("breadcrumbs.home"), to: "/" },
    { label: dataset ? `${dataset.workspaceName} / ${dataset.name}` : "…", to: paths.annotation(id) },
    { label: t("review.review.title") },
  ];
  const headerActions = (
    <>
      <Link className="button button--ghost" to={paths.annotation(id)}>
        {t("review.links.annotate")}
      </Link>
      <Link className="button button--ghost" to={paths.agreement(id)}>
        {t("review.links.agreement")}
      </Link>
    </>
  );
  if (!allowed) {
    return (
      <AnnotationLayout breadcrumbs={breadcrumbs}>
        <p role="alert" className="form-error review-forbidden">
          {t("review.forbidden")}
        </p>
      </AnnotationLayout>
    );
  }
  const questions = settingsRef.current?.questions ?? [];
  const item = vm.item;
  const record = vm.record;
  return (
    <AnnotationLayout breadcrumbs={breadcrumbs} headerActions={headerActions}>
      <div className="review">
        <div className="review__main">
          <h1 className="review__title">{t("review.review.title")}</h1>
          <ReviewFilters vm={vm} questions={questions} />
          {vm.progress && <ReviewProgressBar reviewed={vm.progress.reviewed} total={vm.progress.needingReview} />}
          <p className="muted review__shortcuts">{t("review.review.shortcuts")}</p>
          {vm.failed && (
            <p role="alert" className="form-error">
              {t("review.review.loadError")}
            </p>
          )}
          {vm.loading && !item && (
            <p aria-busy="true" className="muted">
              {t("review.review.loading")}
            </p>
          )}
          {!vm.loading && !vm.failed && !item && (
            <p className="muted" role="status">
              {t("review.review.empty")}
            </p>
          )}
          {item && (
            <nav ref={navRef} className="record-nav" aria-label={t("review.review.nav.label")}>
              {vm.pinned ? (
                <button type="button" className="button" onClick={() => vm.unpin()}>
                  {t("review.review.backToList")}
                </button>
              ) : (
                <>
                  <button type="button" className="button" disabled={!vm.hasPrevious} onClick={() => vm.previous()}>
                    {t("review.review.nav.previous")}
                  </button>
                  <span className="record-nav__position">
                    {t("review.review.nav.position", { position: vm.position + 1, total: vm.total })}
                  </span>
                  <button type="button" className="button" disabled={!vm.hasNext} onClick={() => vm.next()}>
                    {t("review.review.nav.next")}
                  </button>
                </>
              )}
            </nav>
          )}
          {item && record && (
            <article className="record-card" aria-label={t("annotation.record.label")} data-record-id={record.id}>
              <header className="record-card__header">
                {item.validated && <span className="status-badge status-badge--validated">{t("review.validated")}</span>}
              </header>
              <RecordFields record={record} form={vm.form} search="" />
            </article>
          )}
          {item && <ResponsesTable vm={vm} questions={questions} />}
          {item && item.suggestions.length > 0 && (
            <section className="panel" aria-labelledby="review-suggestions">
              <h2 id="review-suggestions">{t("review.review.suggestions.title")}</h2>
              <ul>
                {item.suggestions.map((s) => {
                  const q = questions.find((x) => x.id === s.questionId);
                  const score =
                    typeof s.score === "number"
                      ? s.score.toFixed(2)
                      : Array.isArray(s.score)
                        ? s.score.map((x) => x.toFixed(2)).join(", ")
                        : "–";
                  return (
                    <li key={`${s.questionId}-${s.agent ?? ""}`}>
                      <strong>{q?.title ?? s.questionName}</strong>:{" "}
                      {q ? formatAnswer(q.type, s.value, spanText(q, item.record.fields)) : String(s.value)}{" "}
                      <span className="muted">
                        ({t("review.review.suggestions.by", { agent: s.agent ?? t("review.review.suggestions.noAgent"), score })})
                      </span>
                    </li>
                  );
                })}
              </ul>
            </section>
          )}
        </div>
        {item && record && (
          <section className="form-panel review__form" aria-labelledby="final-answer-title" ref={formRef}>
            <h2 id="final-answer-title">{t("review.review.finalAnswer.title")}</h2>
            <p className="muted">
              {item.finalAnswer
                ? t("review.review.finalAnswer.fromFinal", {
                    reviewer: item.finalAnswer.reviewer?.username ?? "?",
                    date: new Date(`${item.finalAnswer.updatedAt}Z`).toLocaleString(),
                  })
                : t("review.review.finalAnswer.fromMajority")}
            </p>
            <QuestionsForm record={record} form={vm.form} />
            <footer className="form-footer">
              <span className="form-footer__state" role="status" aria-live="polite">
                {vm.outcome ? t(`review.review.finalAnswer.${vm.outcome}`) : ""}
              </span>
              {item.finalAnswer && (
                <button
                  type="button"
                  className="button button--ghost"
                  onClick={() => {
                    void vm.clear();
                  }}
                  disabled={vm.saving}
                >
                  {t("review.review.finalAnswer.clear")}
                </button>
              )}
              <button
                type="button"
                className="button button--primary"
                onClick={() => {
                  void vm.submit();
                }}
                disabled={vm.saving}
              >
                <kbd>↵</kbd> {t("review.review.finalAnswer.submit")}
              </button>
            </footer>
          </section>
        )}
      </div>
    </AnnotationLayout>
  );
});

function spanText(question: Question, fields: { [name: string]: unknown }): string | undefined {
  const field = question.settings.field;
  const text = field ? fields[field] : undefined;
  return typeof text === "string" ? text : undefined;
}

const ReviewFilters = observer(function ReviewFilters({ vm, questions }: { vm: ReviewViewModel; questions: Question[] }) {
  const { t } = useTranslation();
  return (
    <form className="review__filters" aria-label={t("review.review.filters.label")} onSubmit={(e) => e.preventDefault()}>
      <label>
        {t("review.review.filters.disagreements")}{" "}
        <select value={vm.question} onChange={(e) => vm.setQuestion(e.target.value)}>
          <option value="">{t("review.review.filters.anyQuestion")}</option>
          {questions.map((q) => (
            <option key={q.name} value={q.name}>
              {q.title}
            </option>
          ))}
          <option value={ALL_RECORDS}>{t("review.review.filters.allRecords")}</option>
        </select>
      </label>
      <label>
        {t("review.review.filters.show")}{" "}
        <select value={vm.show} onChange={(e) => vm.setShow(e.target.value as ReviewShow)}>
          <option value="toReview">{t("review.review.filters.toReview")}</option>
          <option value="reviewed">{t("review.review.filters.reviewed")}</option>
          <option value="all">{t("review.review.filters.all")}</option>
        </select>
      </label>
      <MetadataFiltersNote count={vm.metadataFilters.length} onDrop={() => vm.dropMetadata()} />
    </form>
  );
});

const ResponsesTable = observer(function ResponsesTable({ vm, questions }: { vm: ReviewViewModel; questions: Question[] }) {
  const { t } = useTranslation();
  const item = vm.item;
  if (!item) return null;
  return (
    <section className="panel" aria-labelledby="review-responses">
      <h2 id="review-responses">{t("review.review.responses.title")}</h2>
      {item.responses.length === 0 ? (
        <p className="muted">{t("review.review.responses.none")}</p>
      ) : (
        <div className="review__table-wrap">
          <table className="review__responses">
            <thead>
              <tr>
                <th scope="col">{t("review.review.responses.annotator")}</th>
                <th scope="col">{t("review.review.responses.status")}</th>
                <th scope="col">{t("review.review.responses.when")}</th>
                {questions.map((q) => (
                  <th scope="col" key={q.name} className={item.disagreements.includes(q.name) ? "review__disagree" : undefined}>
                    {q.title}
                    {item.disagreements.includes(q.name) && (
                      <span className="review__disagree-mark" title={t("review.review.responses.disagreement")}>
                        {" "}
                        ≠<span className="visually-hidden">{t("review.review.responses.disagreement")}</span>
                      </span>
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {item.responses.map((r) => (
                <tr key={r.id} data-user={r.username}>
                  <th scope="row">{r.username}</th>
                  <td>
                    <span className={`status-badge status-badge--${r.status}`}>{t(`annotation.status.${r.status}`)}</span>
                  </td>
                  <td>
                    <time dateTime={r.updatedAt}>{new Date(`${r.updatedAt}Z`).toLocaleString()}</time>
                  </td>
                  {questions.map((q) => (
                    <td key={q.name}>
                      {formatAnswer(q.type, r.values[q.name], spanText(q, item.record.fields)) ?? t("review.review.responses.noAnswer")}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
});
