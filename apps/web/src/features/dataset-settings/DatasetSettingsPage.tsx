import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams } from "react-router";
import {
  DeleteDatasetUseCase,
  HasDatasetResponsesUseCase,
  LoadDatasetWithSettingsUseCase,
  UpdateDatasetSettingUseCase,
  UpdateFieldSettingUseCase,
  UpdateMetadataSettingUseCase,
  UpdateQuestionSettingUseCase,
  UpdateVectorSettingUseCase,
  type DatasetPart,
  type Field,
  type Message,
  type MetadataProperty,
  type Question,
  type Vector,
} from "@tessera/domain";
import { useResolve } from "../../app/container-context";
import { paths } from "../../app/routes";
import { InternalPageLayout } from "../../layouts";
import { useQueryParams } from "../../shared/query-params";
import { useSession } from "../session/session-context";
import { previewRecord } from "../dataset-creation/preview-record";
import { RecordPreview } from "../dataset-creation/RecordPreview";
import { renderMarkdown } from "../annotation/fields/markdown";
import { DatasetSettingsViewModel, SETTINGS_TABS, type SettingsTab } from "./dataset-settings-view-model";
import { translateMessage } from "./translate-message";
import { SortableOptions } from "./SortableOptions";
import { ReservationTimeoutCard } from "./ReservationTimeoutCard";
import "./dataset-settings.css";
import { UploadRecordsPanel } from "../transfer/upload/UploadRecordsPanel";
import { mappingSettingsOf } from "../transfer/upload/mapping-settings";

type Item = Question | Field | MetadataProperty | Vector;
const DISTRIBUTION: DatasetPart = "distribution";
const GUIDELINES: DatasetPart = "guidelines";
const ALLOW_EXTRA_METADATA_KEY = "dataset:allowExtraMetadata";
const QUESTIONS_ONLY = "questions";

/** `/dataset/:id/settings`: dataset info, fields, questions, metadata, vectors and the danger zone (admins and owners). */
export const DatasetSettingsPage = observer(function DatasetSettingsPage() {
  const { t } = useTranslation();
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const session = useSession();
  const [query, setQuery] = useQueryParams();
  const useCases = {
    load: useResolve(LoadDatasetWithSettingsUseCase),
    updateDataset: useResolve(UpdateDatasetSettingUseCase),
    updateQuestion: useResolve(UpdateQuestionSettingUseCase),
    updateField: useResolve(UpdateFieldSettingUseCase),
    updateMetadata: useResolve(UpdateMetadataSettingUseCase),
    updateVector: useResolve(UpdateVectorSettingUseCase),
    deleteDataset: useResolve(DeleteDatasetUseCase),
    hasResponses: useResolve(HasDatasetResponsesUseCase),
  };
  const vm = useMemo(() => new DatasetSettingsViewModel(id, useCases), [id]);
  const isAdminOrOwner = session.user?.isAdminOrOwner ?? false;
  useEffect(() => {
    void vm.load({ isAdminOrOwner });
  }, [vm, isAdminOrOwner]);
  useEffect(() => {
    if (vm.deleted) void navigate(paths.home());
  }, [vm.deleted, navigate]);

  const queryTab = typeof query["tab"] === "string" ? query["tab"] : "info";
  const tab: SettingsTab = (SETTINGS_TABS as readonly string[]).includes(queryTab) ? (queryTab as SettingsTab) : "info";
  const dataset = vm.dataset;
  const breadcrumbs = [
    { label: t("breadcrumbs.home"), to: paths.home() },
    { label: dataset?.name ?? id, to: paths.annotation(id) },
    { label: t("breadcrumbs.settings") },
  ];
  const header = (
    <div className="settings-header">
      <h1>{t("datasetSettings.title")}</h1>
      {vm.state === "ready" && <Link to={paths.annotation(id)}>{t("datasetSettings.seeDataset")}</Link>}
    </div>
  );

  if (vm.state === "notAllowed") {
    return (
      <InternalPageLayout breadcrumbs={breadcrumbs} pageHeader={<h1>{t("datasetSettings.notAllowed.title")}</h1>}>
        <div className="empty-state" role="alert">
          <p>{t("datasetSettings.notAllowed.text")}</p>
          <Link className="button button--primary" to={paths.home()}>
            {t("datasetSettings.notAllowed.back")}
          </Link>
        </div>
      </InternalPageLayout>
    );
  }
  return (
    <InternalPageLayout breadcrumbs={breadcrumbs} pageHeader={header}>
      {vm.state === "loading" && <p role="status">{t("common.loading")}</p>}
      {vm.state === "failed" && (
        <p className="form-error" role="alert">
          {t("datasetSettings.loadFailed")}
        </p>
      )}
      {vm.state === "ready" && dataset && (
        <>
          <Tabs current={tab} onChange={(next) => setQuery({ tab: next === "info" ? null : next })} />
          <div className="settings-panel" role="tabpanel" id={`settings-panel-${tab}`} aria-labelledby={`settings-tab-${tab}`}>
            {tab === "info" && <InfoSection vm={vm} />}
            {tab === "fields" && <FieldsSection vm={vm} />}
            {tab === "questions" && <QuestionsSection vm={vm} />}
            {tab === "metadata" && <MetadataSection vm={vm} />}
            {tab === "vectors" && <VectorsSection vm={vm} />}
            {tab === "records" && vm.settings && <UploadRecordsPanel datasetId={dataset.id} settings={mappingSettingsOf(vm.settings)} />}
            {tab === "danger" && <DangerSection vm={vm} />}
          </div>
        </>
      )}
    </InternalPageLayout>
  );
});

/** A tablist with arrow, Home and End keys (roving focus). */
function Tabs({ current, onChange }: { current: SettingsTab; onChange: (tab: SettingsTab) => void }) {
  const { t } = useTranslation();
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const i = SETTINGS_TABS.indexOf(current);
    const next =
      event.key === "ArrowRight"
        ? i + 1
        : event.key === "ArrowLeft"
          ? i - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? SETTINGS_TABS.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    const index = (next + SETTINGS_TABS.length) % SETTINGS_TABS.length;
    onChange(SETTINGS_TABS[index] as SettingsTab);
    refs.current[index]?.focus();
  };
  return (
    <div className="settings-tabs" role="tablist" aria-label={t("datasetSettings.tabsLabel")} onKeyDown={onKeyDown}>
      {SETTINGS_TABS.map((tab, i) => (
        <button
          key={tab}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`settings-tab-${tab}`}
          aria-selected={tab === current}
          aria-controls={`settings-panel-${tab}`}
          tabIndex={tab === current ? 0 : -1}
          className={`settings-tabs__tab${tab === current ? " settings-tabs__tab--current" : ""}${tab === "danger" ? " settings-tabs__tab--danger" : ""}`}
          onClick={() => onChange(tab)}
        >
          {t(`datasetSettings.tabs.${tab}`)}
        </button>
      ))}
    </div>
  );
}

function Errors({ id, messages }: { id: string; messages: Message[] }) {
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

/** Cancel (restore the last saved values) and Update, enabled once the item is modified (Update also needs it valid). */
const ItemActions = observer(function ItemActions({
  modified,
  canUpdate,
  saving,
  outcome,
  onCancel,
  onUpdate,
  label,
}: {
  modified: boolean;
  canUpdate: boolean;
  saving: boolean;
  outcome: "saved" | "reverted" | undefined;
  onCancel: () => void;
  onUpdate: () => void;
  label: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="settings-item__actions">
      <span className="settings-item__status" role="status">
        {saving
          ? t("datasetSettings.actions.saving")
          : !modified && outcome === "saved"
            ? t("datasetSettings.actions.saved")
            : !modified && outcome === "reverted"
              ? t("datasetSettings.actions.reverted")
              : ""}
      </span>
      <button
        type="button"
        className="button button--small"
        disabled={!modified || saving}
        onClick={onCancel}
        aria-label={`${t("datasetSettings.actions.cancel")}: ${label}`}
      >
        {t("datasetSettings.actions.cancel")}
      </button>
      <button
        type="button"
        className="button button--small button--primary"
        disabled={!canUpdate}
        onClick={onUpdate}
        aria-label={`${t("datasetSettings.actions.update")}: ${label}`}
      >
        {t("datasetSettings.actions.update")}
      </button>
    </div>
  );
});

function TextInput({
  label,
  value,
  onChange,
  errors,
  multiline = false,
  help,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  errors: Message[];
  multiline?: boolean;
  help?: string;
}) {
  const id = useId();
  const describedBy = [errors.length ? `${id}-errors` : "", help ? `${id}-help` : ""].filter(Boolean).join(" ") || undefined;
  const props = { id, value, "aria-invalid": errors.length > 0, "aria-describedby": describedBy };
  return (
    <div className="settings-input">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea {...props} rows={3} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...props} type="text" onChange={(e) => onChange(e.target.value)} />
      )}
      {help && (
        <p id={`${id}-help`} className="muted settings-input__help">
          {help}
        </p>
      )}
      <Errors id={`${id}-errors`} messages={errors} />
    </div>
  );
}

function Switch({
  label,
  checked,
  onChange,
  disabled = false,
  help,
}: {
  label: string;
  checked: boolean;
  onChange: (value: boolean) => void;
  disabled?: boolean;
  help?: string;
}) {
  const id = useId();
  return (
    <div className="settings-switch">
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={help ? `${id}-help` : undefined}
      />
      <label htmlFor={id}>{label}</label>
      {help && (
        <p id={`${id}-help`} className="muted settings-input__help">
          {help}
        </p>
      )}
    </div>
  );
}

function Card({ title, badge, children }: { title: string; badge?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section className="card settings-item" aria-labelledby={id}>
      <div className="card__title-row">
        <h2 id={id}>{title}</h2>
        {badge}
      </div>
      {children}
    </section>
  );
}

const InfoSection = observer(function InfoSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  const [previewing, setPreviewing] = useState(false);
  const guidelinesId = useId();
  const minId = useId();
  const d = vm.dataset;
  vm.track();
  if (!d) return null;
  const datasetActions = (part: DatasetPart, label: string) => (
    <ItemActions
      label={label}
      modified={d.isModified(part)}
      canUpdate={vm.canUpdateDataset(part)}
      saving={vm.isSaving(`dataset:${part}`)}
      outcome={vm.outcome(`dataset:${part}`)}
      onCancel={() => vm.cancelDataset(part)}
      onUpdate={() => void vm.saveDataset(part)}
    />
  );
  const guidelineErrors = d.isModified("guidelines") ? vm.datasetErrors("guidelines") : [];
  const distributionErrors = vm.datasetErrors("distribution");
  return (
    <div className="settings-stack">
      <Card title={d.name}>
        <dl className="field-list">
          <dt>{t("datasetSettings.info.name")}</dt>
          <dd>{d.name}</dd>
          <dt>{t("datasetSettings.info.workspace")}</dt>
          <dd>{d.workspaceName}</dd>
        </dl>
      </Card>
      <Card title={t("datasetSettings.info.distribution")}>
        <div className="settings-input">
          <label htmlFor={minId}>{t("datasetSettings.info.minSubmitted")}</label>
          <input
            id={minId}
            type="number"
            min={1}
            step={1}
            value={Number.isFinite(d.distribution.minSubmitted) ? d.distribution.minSubmitted : ""}
            disabled={vm.distributionLocked}
            aria-invalid={distributionErrors.length > 0}
            aria-describedby={`${minId}-help${distributionErrors.length ? ` ${minId}-errors` : ""}${vm.distributionMessage ? ` ${minId}-locked` : ""}`}
            onChange={(e) => vm.setMinSubmitted(e.target.value === "" ? Number.NaN : Number(e.target.value))}
          />
          <p id={`${minId}-help`} className="muted settings-input__help">
            {t("datasetSettings.info.minSubmittedHelp")}
          </p>
          {vm.distributionMessage && (
            <p id={`${minId}-locked`} className="settings-locked">
              {translateMessage(t, vm.distributionMessage)}
            </p>
          )}
          <Errors id={`${minId}-errors`} messages={distributionErrors} />
        </div>
        {datasetActions(DISTRIBUTION, t("datasetSettings.info.distribution"))}
      </Card>
      <ReservationTimeoutCard datasetId={d.id} />
      <Card title={t("datasetSettings.info.guidelines")}>
        <div
          className="settings-write-preview"
          role="group"
          aria-label={`${t("datasetSettings.info.write")} / ${t("datasetSettings.info.preview")}`}
        >
          <button type="button" className="button button--small" aria-pressed={!previewing} onClick={() => setPreviewing(false)}>
            {t("datasetSettings.info.write")}
          </button>
          <button type="button" className="button button--small" aria-pressed={previewing} onClick={() => setPreviewing(true)}>
            {t("datasetSettings.info.preview")}
          </button>
        </div>
        {previewing ? (
          <div className="markdown settings-guidelines-preview" dangerouslySetInnerHTML={{ __html: renderMarkdown(d.guidelines ?? "") }} />
        ) : (
          <div className="settings-input">
            <label htmlFor={guidelinesId} className="visually-hidden">
              {t("datasetSettings.info.guidelines")}
            </label>
            <textarea
              id={guidelinesId}
              rows={8}
              value={d.guidelines ?? ""}
              aria-invalid={guidelineErrors.length > 0}
              aria-describedby={`${guidelinesId}-help${guidelineErrors.length ? ` ${guidelinesId}-errors` : ""}`}
              onChange={(e) => vm.setGuidelines(e.target.value)}
            />
            <p id={`${guidelinesId}-help`} className="muted settings-input__help">
              {t("datasetSettings.info.guidelinesHelp")}
            </p>
            <Errors id={`${guidelinesId}-errors`} messages={guidelineErrors} />
          </div>
        )}
        {datasetActions(GUIDELINES, t("datasetSettings.info.guidelines"))}
      </Card>
      <Card title={t("datasetSettings.info.allowExtraMetadata")}>
        <Switch
          label={t("datasetSettings.info.allowExtraMetadata")}
          checked={d.allowExtraMetadata}
          disabled={vm.isSaving(ALLOW_EXTRA_METADATA_KEY)}
          help={t("datasetSettings.info.allowExtraMetadataHelp")}
          onChange={(v) => void vm.toggleAllowExtraMetadata(v)}
        />
      </Card>
    </div>
  );
});

function actionsFor(vm: DatasetSettingsViewModel, item: Item, label: string) {
  return (
    <ItemActions
      label={label}
      modified={vm.isModified(item)}
      canUpdate={vm.canUpdate(item)}
      saving={vm.isSaving(vm.key(item))}
      outcome={vm.outcome(vm.key(item))}
      onCancel={() => vm.cancel(item)}
      onUpdate={() => void vm.save(item)}
    />
  );
}

const FieldsSection = observer(function FieldsSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  vm.track();
  const fields = vm.settings?.fields ?? [];
  if (fields.length === 0) return <p className="muted">{t("datasetSettings.fields.none")}</p>;
  return (
    <div className="settings-stack">
      {fields.map((f) => (
        <Card
          key={f.id}
          title={f.name}
          badge={
            <span className="settings-badge">
              {t(`datasetSettings.fieldTypes.${f.type}`, { defaultValue: f.type })} ·{" "}
              {f.required ? t("datasetSettings.fields.required") : t("datasetSettings.fields.optional")}
            </span>
          }
        >
          <TextInput
            label={t("datasetSettings.fields.title")}
            value={f.title}
            onChange={(v) => vm.setTitle(f, v)}
            errors={vm.errors(f).title}
          />
          {(f.isText || f.isChat) && (
            <Switch label={t("datasetSettings.fields.useMarkdown")} checked={f.useMarkdown} onChange={(v) => vm.setUseMarkdown(f, v)} />
          )}
          {f.isCustom && (
            <div className="settings-input">
              <span className="settings-input__label">{t("datasetSettings.fields.template")}</span>
              <pre className="code settings-template">{f.template}</pre>
            </div>
          )}
          {actionsFor(vm, f, f.name)}
        </Card>
      ))}
    </div>
  );
});

const QuestionsSection = observer(function QuestionsSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  vm.track();
  const questions = vm.settings?.questions ?? [];
  const fields = vm.settings?.fields ?? [];
  const preview = useMemo(() => {
    const values = Object.fromEntries(fields.map((f) => [f.name, f.isText ? f.title : ""]));
    return previewRecord(
      questions.map((q) => q.toProps()),
      fields.map((f) => f.toProps()),
      values,
    );
  }, [vm.version]);
  if (questions.length === 0) return <p className="muted">{t("datasetSettings.questions.none")}</p>;
  return (
    <div className="settings-columns">
      <div className="settings-stack">
        {questions.map((q) => (
          <QuestionCard key={q.id} vm={vm} question={q} />
        ))}
      </div>
      <aside className="card settings-preview" aria-label={t("datasetSettings.questions.preview")}>
        <h2>{t("datasetSettings.questions.preview")}</h2>
        <p className="muted">{t("datasetSettings.questions.previewText")}</p>
        <RecordPreview record={preview} show={QUESTIONS_ONLY} />
      </aside>
    </div>
  );
});

const QuestionCard = observer(function QuestionCard({ vm, question: q }: { vm: DatasetSettingsViewModel; question: Question }) {
  const { t } = useTranslation();
  vm.track();
  const errors = vm.errors(q);
  const options = q.settings.options ?? [];
  const hasLabels = ["label_selection", "multi_label_selection", "span", "ranking"].includes(q.type);
  const visibleId = useId();
  return (
    <Card
      title={q.name}
      badge={
        <span className="settings-badge">
          {t(`datasetSettings.questionTypes.${q.type}`, { defaultValue: q.type })} ·{" "}
          {q.required ? t("datasetSettings.questions.required") : t("datasetSettings.questions.optional")}
        </span>
      }
    >
      <TextInput label={t("datasetSettings.questions.title")} value={q.title} onChange={(v) => vm.setTitle(q, v)} errors={errors.title} />
      <TextInput
        label={t("datasetSettings.questions.description")}
        value={q.description}
        onChange={(v) => vm.setDescription(q, v)}
        errors={errors.description}
        multiline
      />
      {q.type === "text" && (
        <Switch label={t("datasetSettings.questions.useMarkdown")} checked={q.useMarkdown} onChange={(v) => vm.setUseMarkdown(q, v)} />
      )}
      {q.type === "multi_label_selection" && (
        <Switch
          label={t("datasetSettings.questions.suggestionsFirst")}
          checked={q.settings.options_order === "suggestion"}
          onChange={(v) => vm.setSuggestionsFirst(q, v)}
        />
      )}
      {hasLabels && (
        <fieldset className="settings-options">
          <legend>{t("datasetSettings.questions.labels")}</legend>
          <SortableOptions
            items={options.map((o) => ({ id: String(o.value), label: o.text ?? String(o.value) }))}
            onMove={(from, to) => vm.moveOptionTo(q, from, to)}
          >
            {(item, i) => {
              const o = options[i];
              if (!o) return null;
              return (
                <>
                  <input
                    type="text"
                    value={o.text ?? ""}
                    aria-label={t("datasetSettings.questions.labelText", { value: String(o.value) })}
                    onChange={(e) => vm.setOptionText(q, i, e.target.value)}
                  />
                  {q.type === "span" && (
                    <>
                      <span className="settings-option__swatch" style={{ background: q.options[i]?.color }} aria-hidden="true" />
                      <input
                        type="text"
                        className="settings-option__color"
                        value={o.color ?? q.options[i]?.color ?? ""}
                        placeholder={t("datasetSettings.questions.colorPlaceholder")}
                        aria-label={t("datasetSettings.questions.color", { label: item.label })}
                        aria-invalid={vm.colorInvalid(o)}
                        title={t("datasetSettings.questions.colorHelp")}
                        onChange={(e) => vm.setOptionColor(q, i, e.target.value)}
                      />
                    </>
                  )}
                </>
              );
            }}
          </SortableOptions>
          <Errors id={`${visibleId}-options`} messages={errors.options} />
        </fieldset>
      )}
      {vm.hasVisibleOptions(q) && (
        <div className="settings-input">
          <label htmlFor={visibleId}>
            {t("datasetSettings.questions.visibleLabels")}: {q.visibleOptions}
          </label>
          <input
            id={visibleId}
            type="range"
            min={3}
            max={options.length}
            step={1}
            value={q.visibleOptions}
            onChange={(e) => vm.setVisibleOptions(q, Number(e.target.value))}
          />
        </div>
      )}
      {actionsFor(vm, q, q.name)}
    </Card>
  );
});

const MetadataSection = observer(function MetadataSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  vm.track();
  const metadata = vm.settings?.metadata ?? [];
  if (metadata.length === 0) return <p className="muted">{t("datasetSettings.metadata.none")}</p>;
  return (
    <div className="settings-stack">
      {metadata.map((m) => (
        <Card
          key={m.id}
          title={m.name}
          badge={<span className="settings-badge">{t(`datasetSettings.metadataTypes.${m.type}`, { defaultValue: m.type })}</span>}
        >
          <TextInput
            label={t("datasetSettings.metadata.title")}
            value={m.title}
            onChange={(v) => vm.setTitle(m, v)}
            errors={vm.errors(m).title}
          />
          <Switch
            label={t("datasetSettings.metadata.visibleForAnnotators")}
            checked={m.visibleForAnnotators}
            onChange={(v) => vm.setVisibleForAnnotators(m, v)}
          />
          {actionsFor(vm, m, m.name)}
        </Card>
      ))}
    </div>
  );
});

const VectorsSection = observer(function VectorsSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  vm.track();
  const vectors = vm.settings?.vectors ?? [];
  if (vectors.length === 0) return <p className="muted">{t("datasetSettings.vectors.none")}</p>;
  return (
    <div className="settings-stack">
      {vectors.map((v) => (
        <Card
          key={v.id}
          title={v.name}
          badge={<span className="settings-badge">{t("datasetSettings.vectors.dimensions", { count: v.dimensions })}</span>}
        >
          <TextInput
            label={t("datasetSettings.vectors.title")}
            value={v.title}
            onChange={(value) => vm.setTitle(v, value)}
            errors={vm.errors(v).title}
          />
          {actionsFor(vm, v, v.name)}
        </Card>
      ))}
    </div>
  );
});

const DangerSection = observer(function DangerSection({ vm }: { vm: DatasetSettingsViewModel }) {
  const { t } = useTranslation();
  const d = vm.dataset;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (vm.confirmingDelete && !dialog.open) dialog.showModal?.();
    if (!vm.confirmingDelete && dialog.open) dialog.close();
  }, [vm.confirmingDelete]);
  if (!d) return null;
  return (
    <section className="card settings-danger" aria-labelledby={`${titleId}-zone`}>
      <h2 id={`${titleId}-zone`}>{t("datasetSettings.danger.deleteTitle")}</h2>
      <p className="settings-danger__warning">{t("datasetSettings.danger.warning")}</p>
      <button type="button" className="button settings-danger__button" onClick={() => vm.askDelete()}>
        {t("datasetSettings.danger.delete")}
      </button>
      <dialog
        ref={dialogRef}
        className="settings-dialog"
        aria-labelledby={titleId}
        onCancel={(e) => {
          e.preventDefault();
          vm.cancelDelete();
        }}
      >
        <h2 id={titleId}>{t("datasetSettings.danger.deleteTitle")}</h2>
        <p>{t("datasetSettings.danger.confirm", { dataset: d.name, workspace: d.workspaceName })}</p>
        <div className="settings-dialog__actions">
          <button type="button" className="button" onClick={() => vm.cancelDelete()} autoFocus>
            {t("datasetSettings.danger.cancel")}
          </button>
          <button type="button" className="button settings-danger__button" disabled={vm.deleting} onClick={() => void vm.confirmDelete()}>
            {t("datasetSettings.danger.yes")}
          </button>
        </div>
      </dialog>
    </section>
  );
});
