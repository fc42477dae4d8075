import { useEffect, useId, useMemo, type ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams } from "react-router";
import {
  CreateDatasetUseCase,
  GetDatasetCreationUseCase,
  GetFirstRecordFromHubUseCase,
  GetWorkspacesUseCase,
  type HubSubset,
  type Message,
  type QuestionCreation,
} from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { paths } from "../../app/routes";
import { InternalPageLayout } from "../../layouts";
import { translateMessage } from "../dataset-settings/translate-message";
import { SortableOptions } from "../dataset-settings/SortableOptions";
import { RecordPreview } from "./RecordPreview";
import {
  ADDABLE_QUESTION_TYPES,
  COLUMN_TYPES,
  DatasetCreationViewModel,
  NEW_WORKSPACE,
  type ColumnType,
} from "./dataset-creation-view-model";
import "../dataset-settings/dataset-settings.css";
import "./dataset-creation.css";

const COLUMN_TYPE_KEY: { [type in ColumnType]: string } = {
  text: "text",
  image: "image",
  chat: "chat",
  "no mapping": "noMapping",
  terms: "terms",
  integer: "integer",
  float: "float",
};

const FIELDS_ONLY = "fields";
const QUESTIONS_ONLY = "questions";

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `/new/:id` and the catch-all `/:id`: create a dataset from a Hub repository (id URL-encoded in one segment). */
export const DatasetCreationPage = observer(function DatasetCreationPage() {
  const { t } = useTranslation();
  const { id = "" } = useParams();
  const repoId = safeDecode(id);
  const navigate = useNavigate();
  const useCases = {
    getCreation: useResolve(GetDatasetCreationUseCase),
    getFirstRow: useResolve(GetFirstRecordFromHubUseCase),
    getWorkspaces: useResolve(GetWorkspacesUseCase),
    create: useResolve(CreateDatasetUseCase),
  };
  const vm = useMemo(
    () =>
      new DatasetCreationViewModel(repoId, useCases, (type, n) =>
        t("datasetCreation.questions.newTitle", { type: t(`datasetCreation.questions.types.${type}`), n }),
      ),
    [repoId],
  );
  useEffect(() => {
    if (repoId) void vm.load();
  }, [vm, repoId]);
  useEffect(() => {
    if (vm.createdId) void navigate(paths.annotation(vm.createdId));
  }, [vm.createdId, navigate]);

  const breadcrumbs = [{ label: t("breadcrumbs.home"), to: paths.home() }, { label: repoId || t("placeholders.datasetCreation") }];
  if (!repoId || vm.state === "notFound") {
    return (
      <InternalPageLayout breadcrumbs={breadcrumbs} pageHeader={<h1>{t("placeholders.datasetCreation")}</h1>}>
        <div className="empty-state" role="alert">
          <h2>{repoId ? t("datasetCreation.datasetNotFound") : t("datasetCreation.noRepo")}</h2>
          {repoId && (
            <p>
              <code>{repoId}</code>
            </p>
          )}
          <Link className="button button--primary" to={paths.home()}>
            {t("datasetCreation.backHome")}
          </Link>
        </div>
      </InternalPageLayout>
    );
  }
  return (
    <InternalPageLayout breadcrumbs={breadcrumbs} pageHeader={<h1>{t("datasetCreation.title", { repoId })}</h1>}>
      {vm.state === "loading" && <p role="status">{t("datasetCreation.loading")}</p>}
      {vm.state === "ready" && (
        <div className="creation-layout">
          <PreviewColumn vm={vm} />
          <ConfigurationColumn vm={vm} />
        </div>
      )}
    </InternalPageLayout>
  );
});

export const PreviewColumn = observer(function PreviewColumn({ vm }: { vm: DatasetCreationViewModel }) {
  const { t } = useTranslation();
  const record = vm.preview;
  const fieldsId = useId();
  const questionsId = useId();
  return (
    <div className="creation-preview">
      <section className="card" aria-labelledby={fieldsId}>
        <h2 id={fieldsId}>{t("datasetCreation.preview.title")}</h2>
        {record && record.fields.some((f) => f.content !== "" && f.content !== undefined && f.content !== null) ? (
          <RecordPreview record={record} show={FIELDS_ONLY} />
        ) : (
          <p className="muted">{t("datasetCreation.preview.noRow")}</p>
        )}
      </section>
      <section className="card" aria-labelledby={questionsId}>
        <h2 id={questionsId}>{t("datasetCreation.preview.questions")}</h2>
        {record && record.questions.length > 0 ? (
          <RecordPreview record={record} show={QUESTIONS_ONLY} />
        ) : (
          <p className="muted">{t("datasetCreation.preview.empty")}</p>
        )}
      </section>
    </div>
  );
});

function Messages({ id, messages }: { id?: string; messages: Message[] }) {
  const { t } = useTranslation();
  if (messages.length === 0) return null;
  return (
    <div id={id} className="form-error" role="alert">
      {messages.map((m) => (
        <p key={m.key}>{translateMessage(t, m)}</p>
      ))}
    </div>
  );
}

function Select({
  label,
  value,
  onChange,
  children,
  help,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
  help?: string;
}) {
  const id = useId();
  return (
    <div className="settings-input">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={help ? `${id}-help` : undefined}>
        {children}
      </select>
      {help && (
        <p id={`${id}-help`} className="muted settings-input__help">
          {help}
        </p>
      )}
    </div>
  );
}

function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  const id = useId();
  return (
    <div className="settings-switch">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

export const ConfigurationColumn = observer(function ConfigurationColumn({ vm }: { vm: DatasetCreationViewModel }) {
  const { t } = useTranslation();
  vm.track();
  const c = vm.creation;
  const s = vm.subset;
  const nameId = useId();
  const newWsId = useId();
  if (!c || !s) return null;
  const nameMissing = c.name.trim() === "";
  return (
    <form
      className="creation-config"
      onSubmit={(e) => {
        e.preventDefault();
        void vm.create();
      }}
      aria-busy={vm.creating}
    >
      <section className="card">
        {c.subsets.length > 1 && (
          <Select
            label={t("datasetCreation.subset")}
            value={s.name}
            onChange={(v) => vm.selectSubset(v)}
            help={t("datasetCreation.subsetHelp")}
          >
            {c.subsets.map((x) => (
              <option key={x.name} value={x.name}>
                {x.name}
              </option>
            ))}
          </Select>
        )}
        {s.splits.length > 0 && (
          <Select label={t("datasetCreation.split")} value={s.split} onChange={(v) => vm.selectSplit(v)}>
            {s.splits.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </Select>
        )}
      </section>

      <ColumnsCard vm={vm} />
      <QuestionsCard vm={vm} />

      <section className="card" aria-labelledby={`${nameId}-title`}>
        <h2 id={`${nameId}-title`}>{t("datasetCreation.create.title")}</h2>
        <div className="settings-input">
          <label htmlFor={nameId}>{t("datasetCreation.create.name")}</label>
          <input
            id={nameId}
            type="text"
            value={c.name}
            onChange={(e) => vm.setName(e.target.value)}
            aria-invalid={nameMissing}
            aria-describedby={nameMissing ? `${nameId}-error` : undefined}
          />
          {nameMissing && (
            <p id={`${nameId}-error`} className="form-error">
              {t("datasetCreation.create.nameRequired")}
            </p>
          )}
        </div>
        <Select label={t("datasetCreation.create.workspace")} value={vm.workspaceChoice} onChange={(v) => vm.chooseWorkspace(v)}>
          {vm.workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
          <option value={NEW_WORKSPACE}>{t("datasetCreation.create.newWorkspace")}</option>
        </Select>
        {vm.workspaceChoice === NEW_WORKSPACE && (
          <div className="settings-input">
            <label htmlFor={newWsId}>{t("datasetCreation.create.newWorkspaceName")}</label>
            <input id={newWsId} type="text" value={vm.newWorkspaceName} onChange={(e) => vm.setNewWorkspaceName(e.target.value)} />
          </div>
        )}
        {c.workspace === null && <p className="muted">{t("datasetCreation.create.workspaceRequired")}</p>}
        <p className="muted">{t("datasetCreation.create.note")}</p>
        <Messages messages={vm.errors} />
        {vm.failed && (
          <p className="form-error" role="alert">
            {t("datasetCreation.create.failed")}
          </p>
        )}
        <div className="settings-item__actions">
          {vm.creating && (
            <span className="settings-item__status" role="status">
              <span className="creation-spinner" aria-hidden="true" />
              {t("datasetCreation.create.creating")}
            </span>
          )}
          <button type="submit" className="button button--primary" disabled={!vm.canCreate}>
            {t("datasetCreation.create.button")}
          </button>
        </div>
      </section>
    </form>
  );
});

/** A card about the selected subset, titled by `title`; renders nothing until a subset is selected. */
const SubsetCard = observer(function SubsetCard({
  vm,
  title,
  children,
}: {
  vm: DatasetCreationViewModel;
  title: string;
  children: (subset: HubSubset) => ReactNode;
}) {
  vm.track();
  const s = vm.subset;
  const titleId = useId();
  if (!s) return null;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children(s)}
    </section>
  );
});

const ColumnsCard = observer(function ColumnsCard({ vm }: { vm: DatasetCreationViewModel }) {
  const { t } = useTranslation();
  return (
    <SubsetCard vm={vm} title={t("datasetCreation.columns.title")}>
      {(s) => (
        <>
          <p>{t("datasetCreation.columns.help")}</p>
          <ul className="creation-columns">
            {vm.listedColumns.map((column) => {
              const type = vm.columnType(column);
              const field = vm.field(column);
              const isField = type === "text" || type === "image" || type === "chat";
              return (
                <li key={column} className="creation-column">
                  <span className="creation-column__name">{column}</span>
                  <select
                    aria-label={t("datasetCreation.columns.type", { column })}
                    value={type}
                    onChange={(e) => vm.setColumnType(column, e.target.value as ColumnType)}
                  >
                    {COLUMN_TYPES.map((x) => (
                      <option key={x} value={x}>
                        {t(`datasetCreation.columns.types.${COLUMN_TYPE_KEY[x]}`)}
                      </option>
                    ))}
                  </select>
                  {isField && field && (
                    <Check
                      label={t("datasetCreation.columns.required")}
                      checked={field.required}
                      onChange={(v) => vm.setFieldRequired(column, v)}
                    />
                  )}
                  {(type === "text" || type === "chat") && field && (
                    <Check
                      label={t("datasetCreation.columns.useMarkdown")}
                      checked={field.useMarkdown}
                      onChange={(v) => vm.setFieldMarkdown(column, v)}
                    />
                  )}
                </li>
              );
            })}
          </ul>
          <Select
            label={t("datasetCreation.columns.externalId")}
            value={s.externalId ?? ""}
            onChange={(v) => vm.setExternalId(v === "" ? null : v)}
            help={t("datasetCreation.columns.externalIdHelp")}
          >
            <option value="">{t("datasetCreation.columns.none")}</option>
            {s.columns.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </Select>
        </>
      )}
    </SubsetCard>
  );
});

const QuestionsCard = observer(function QuestionsCard({ vm }: { vm: DatasetCreationViewModel }) {
  const { t } = useTranslation();
  return (
    <SubsetCard vm={vm} title={t("datasetCreation.questions.title")}>
      {(s) => (
        <>
          <ul className="creation-questions">
            {s.questions.map((q) => (
              <QuestionEditor key={q.name} vm={vm} question={q} />
            ))}
          </ul>
          <div className="creation-add" role="group" aria-label={t("datasetCreation.questions.add")}>
            <span className="settings-input__label">{t("datasetCreation.questions.add")}:</span>
            {ADDABLE_QUESTION_TYPES.map((type) => {
              const label = t(`datasetCreation.questions.types.${type}`);
              return (
                <button
                  key={type}
                  type="button"
                  className="button button--small"
                  aria-label={t("datasetCreation.questions.addType", { type: label })}
                  onClick={() => vm.addQuestion(type)}
                >
                  + {label}
                </button>
              );
            })}
          </div>
        </>
      )}
    </SubsetCard>
  );
});

const QuestionEditor = observer(function QuestionEditor({ vm, question: q }: { vm: DatasetCreationViewModel; question: QuestionCreation }) {
  const { t } = useTranslation();
  vm.track();
  const id = useId();
  const s = vm.subset;
  const errors = vm.questionErrors(q);
  const typeLabel = t(`datasetCreation.questions.types.${q.type}`);
  const range = vm.ratingRange(q);
  return (
    <li className="creation-question" aria-labelledby={`${id}-name`}>
      <div className="card__title-row">
        <h3 id={`${id}-name`}>
          {q.name} <span className="settings-badge">{typeLabel}</span>
        </h3>
        <button
          type="button"
          className="button button--small"
          aria-label={t("datasetCreation.questions.remove", { name: q.name })}
          onClick={() => vm.removeQuestion(q.name)}
        >
          ×
        </button>
      </div>
      <div className="settings-input">
        <label htmlFor={`${id}-title`}>{t("datasetCreation.questions.questionTitle")}</label>
        <input id={`${id}-title`} type="text" value={q.title} onChange={(e) => vm.setQuestionTitle(q.name, e.target.value)} />
      </div>
      <Check label={t("datasetCreation.questions.required")} checked={q.required} onChange={(v) => vm.setQuestionRequired(q.name, v)} />
      {q.type !== "span" && (
        <Select
          label={t("datasetCreation.questions.mapToColumn")}
          value={q.column ?? ""}
          onChange={(v) => vm.setQuestionColumn(q.name, v === "" ? null : v)}
        >
          <option value="">{t("datasetCreation.questions.noMapping")}</option>
          {(s?.columns ?? []).map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </Select>
      )}
      {vm.hasLabels(q) && (
        <div className="settings-input">
          <label htmlFor={`${id}-labels`}>{t("datasetCreation.questions.labels")}</label>
          <input
            id={`${id}-labels`}
            type="text"
            value={vm.labelsText(q)}
            aria-describedby={`${id}-labels-help`}
            aria-invalid={errors.length > 0}
            onChange={(e) => vm.setLabels(q.name, e.target.value)}
          />
          <p id={`${id}-labels-help`} className="muted settings-input__help">
            {t("datasetCreation.questions.labelsHelp")}
          </p>
          {q.options.length > 1 && (
            <div className="creation-label-order" role="group" aria-label={t("datasetCreation.questions.labelOrder", { name: q.name })}>
              <span className="settings-input__label">{t("datasetCreation.questions.labelOrderTitle")}</span>
              <SortableOptions
                items={q.options.map((o, i) => ({ id: `${i}:${String(o.value)}`, label: o.text ?? String(o.value) }))}
                onMove={(from, to) => vm.moveLabel(q.name, from, to)}
              />
            </div>
          )}
        </div>
      )}
      {q.type === "rating" && (
        <div className="creation-range">
          <label htmlFor={`${id}-from`}>{t("datasetCreation.questions.ratingFrom")}</label>
          <input
            id={`${id}-from`}
            type="number"
            min={0}
            max={10}
            value={range.from}
            onChange={(e) => vm.setRatingRange(q.name, Number(e.target.value), range.to)}
          />
          <label htmlFor={`${id}-to`}>{t("datasetCreation.questions.ratingTo")}</label>
          <input
            id={`${id}-to`}
            type="number"
            min={0}
            max={10}
            value={range.to}
            onChange={(e) => vm.setRatingRange(q.name, range.from, Number(e.target.value))}
          />
        </div>
      )}
      {q.type === "span" && (
        <Select
          label={t("datasetCreation.questions.spanField")}
          value={String(q.settings.field ?? "")}
          onChange={(v) => vm.setSpanField(q.name, v)}
        >
          {vm.textFields.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </Select>
      )}
      {q.type === "text" && (
        <Check
          label={t("datasetCreation.questions.useMarkdown")}
          checked={q.settings.use_markdown ?? false}
          onChange={(v) => vm.setQuestionMarkdown(q.name, v)}
        />
      )}
      <Messages messages={errors} />
    </li>
  );
});
