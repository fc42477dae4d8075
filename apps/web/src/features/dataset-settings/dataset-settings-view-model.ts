import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import {
  VISIBLE_OPTIONS_MIN_OPTIONS,
  isHslColor,
  type DatasetPart,
  type DatasetSettings,
  type DeleteDatasetUseCase,
  type Field,
  type HasDatasetResponsesUseCase,
  type LoadDatasetWithSettingsUseCase,
  type Message,
  type MetadataProperty,
  type Question,
  type QuestionOption,
  type UpdateDatasetSettingUseCase,
  type UpdateFieldSettingUseCase,
  type UpdateMetadataSettingUseCase,
  type UpdateQuestionSettingUseCase,
  type UpdateVectorSettingUseCase,
  type Vector,
} from "@tessera/domain";
import { MESSAGES } from "@tessera/domain";

export const SETTINGS_TABS = ["info", "fields", "questions", "metadata", "vectors", "records", "danger"] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

export interface DatasetSettingsUseCases {
  load: Pick<LoadDatasetWithSettingsUseCase, "execute">;
  updateDataset: Pick<UpdateDatasetSettingUseCase, "execute">;
  updateQuestion: Pick<UpdateQuestionSettingUseCase, "execute">;
  updateField: Pick<UpdateFieldSettingUseCase, "execute">;
  updateMetadata: Pick<UpdateMetadataSettingUseCase, "execute">;
  updateVector: Pick<UpdateVectorSettingUseCase, "execute">;
  deleteDataset: Pick<DeleteDatasetUseCase, "execute">;
  hasResponses: Pick<HasDatasetResponsesUseCase, "execute">;
}

export type LoadState = "loading" | "ready" | "notAllowed" | "failed";
/** What the last save of an item did: saved (new baseline) or reverted (silently restored). */
export type SaveOutcome = "saved" | "reverted";

type Editable = Question | Field | MetadataProperty | Vector;

/**
 * The dataset settings page (admins and owners). The domain entities keep each setting against its
 * last saved value; this view model edits them, bumps `version` so observers re-render, and saves one
 * item at a time through the use cases (a failed save reverts silently, a successful one takes the
 * returned updated_at as the baseline).
 */
export class DatasetSettingsViewModel {
  state: LoadState = "loading";
  settings: DatasetSettings | null = null;
  version = 0;
  tab: SettingsTab = "info";
  /** Items being saved, by key ('dataset:guidelines', 'question:<id>' ...). */
  saving = new Set<string>();
  /** The outcome of each item's last save, by key. */
  outcomes = new Map<string, SaveOutcome>();
  distributionLocked = false;
  confirmingDelete = false;
  deleting = false;
  deleted = false;

  constructor(
    private readonly datasetId: string,
    private readonly useCases: DatasetSettingsUseCases,
  ) {
    makeObservable(this, {
      state: observable,
      settings: observableRef,
      version: observable,
      tab: observable,
      saving: observable,
      outcomes: observable,
      distributionLocked: observable,
      confirmingDelete: observable,
      deleting: observable,
      deleted: observable,
      dataset: computed,
      load: action,
      setTab: action,
      edit: action,
      setGuidelines: action,
      setMinSubmitted: action,
      cancelDataset: action,
      cancel: action,
      setTitle: action,
      setDescription: action,
      setUseMarkdown: action,
      setVisibleForAnnotators: action,
      moveOption: action,
      moveOptionTo: action,
      setOptionText: action,
      setOptionColor: action,
      setVisibleOptions: action,
      setSuggestionsFirst: action,
      askDelete: action,
      cancelDelete: action,
    });
  }

  /** Components read this to re-render after an entity mutation. */
  track(): number {
    return this.version;
  }

  get dataset() {
    return this.settings?.dataset ?? null;
  }

  async load(user: { isAdminOrOwner: boolean }): Promise<void> {
    if (!user.isAdminOrOwner) {
      this.state = "notAllowed";
      return;
    }
    this.state = "loading";
    try {
      const [settings, hasResponses] = await Promise.all([
        this.useCases.load.execute(this.datasetId, user),
        this.useCases.hasResponses.execute(this.datasetId),
      ]);
      runInAction(() => {
        this.settings = settings;
        this.distributionLocked = hasResponses;
        this.state = "ready";
        this.version++;
      });
    } catch {
      runInAction(() => {
        this.state = "failed";
      });
    }
  }

  setTab(tab: SettingsTab): void {
    this.tab = tab;
  }

  /** Runs a mutation of an entity and re-renders. */
  edit(mutate: () => void): void {
    mutate();
    this.version++;
  }

  isSaving(key: string): boolean {
    return this.saving.has(key);
  }
  outcome(key: string): SaveOutcome | undefined {
    return this.outcomes.get(key);
  }

  // ---- dataset info ----

  setGuidelines(text: string): void {
    const d = this.dataset;
    if (d) {
      d.guidelines = text;
      this.version++;
    }
  }
  setMinSubmitted(value: number): void {
    const d = this.dataset;
    if (d && !this.distributionLocked) {
      d.distribution = { ...d.distribution, minSubmitted: value };
      this.version++;
    }
  }

  datasetErrors(part: Exclude<DatasetPart, "allowExtraMetadata">): Message[] {
    this.track();
    return this.dataset?.validate()[part] ?? [];
  }

  canUpdateDataset(part: DatasetPart): boolean {
    this.track();
    const d = this.dataset;
    if (!d || this.saving.has(`dataset:${part}`)) return false;
    if (part === "distribution" && this.distributionLocked) return false;
    return d.isModified(part) && d.isValid(part);
  }

  cancelDataset(part: DatasetPart): void {
    this.dataset?.restore(part);
    this.version++;
  }

  async saveDataset(part: DatasetPart): Promise<boolean> {
    const d = this.dataset;
    if (!d) return false;
    if (part !== "allowExtraMetadata" && !d.isValid(part)) return false;
    return this.run(
      `dataset:${part}`,
      () => this.useCases.updateDataset.execute(d, part),
      async (ok) => {
        // The server refuses distribution changes once responses exist: lock the setting with its message.
        if (!ok && part === "distribution" && (await this.useCases.hasResponses.execute(d.id)))
          runInAction(() => {
            this.distributionLocked = true;
          });
      },
    );
  }

  /** The allow-extra-metadata switch saves at once. */
  async toggleAllowExtraMetadata(value: boolean): Promise<boolean> {
    const d = this.dataset;
    if (!d) return false;
    this.edit(() => {
      d.allowExtraMetadata = value;
    });
    return this.saveDataset("allowExtraMetadata");
  }

  get distributionMessage(): Message | null {
    return this.distributionLocked ? MESSAGES.updateDistributionWithExistingResponses : null;
  }

  // ---- fields, questions, metadata, vectors ----

  key(item: Editable): string {
    return `${this.kindOf(item)}:${item.id}`;
  }
  private kindOf(item: Editable): "question" | "field" | "metadata" | "vector" {
    const s = this.settings;
    if (s?.questions.includes(item as Question)) return "question";
    if (s?.fields.includes(item as Field)) return "field";
    if (s?.metadata.includes(item as MetadataProperty)) return "metadata";
    return "vector";
  }

  setTitle(item: Editable, title: string): void {
    item.title = title;
    this.version++;
  }
  setDescription(question: Question, description: string): void {
    question.description = description;
    this.version++;
  }
  setUseMarkdown(item: Question | Field, value: boolean): void {
    item.settings = { ...item.settings, use_markdown: value };
    this.version++;
  }
  setVisibleForAnnotators(property: MetadataProperty, value: boolean): void {
    property.visibleForAnnotators = value;
    this.version++;
  }

  /** Moves a label option by `delta` places (label order, up/down buttons). */
  moveOption(question: Question, index: number, delta: number): void {
    this.moveOptionTo(question, index, index + delta);
  }

  /** Moves the label option at `from` to `to` (label order, drag and drop); out-of-range moves do nothing. */
  moveOptionTo(question: Question, from: number, to: number): void {
    const options = [...(question.settings.options ?? [])];
    if (from === to || from < 0 || to < 0 || from >= options.length || to >= options.length) return;
    const [moved] = options.splice(from, 1);
    if (!moved) return;
    options.splice(to, 0, moved);
    question.settings = { ...question.settings, options };
    this.version++;
  }

  setOptionText(question: Question, index: number, text: string): void {
    question.settings = {
      ...question.settings,
      options: (question.settings.options ?? []).map((o, i) => (i === index ? { ...o, text } : o)),
    };
    this.version++;
  }

  setOptionColor(question: Question, index: number, color: string): void {
    question.settings = {
      ...question.settings,
      options: (question.settings.options ?? []).map((o, i) => (i === index ? { ...o, color } : o)),
    };
    this.version++;
  }

  /** Visible labels: from 3 up to the number of options (only offered with more than 3 options). */
  hasVisibleOptions(question: Question): boolean {
    return (
      ["label_selection", "multi_label_selection", "span"].includes(question.type) &&
      (question.settings.options ?? []).length > VISIBLE_OPTIONS_MIN_OPTIONS
    );
  }
  setVisibleOptions(question: Question, value: number): void {
    const max = (question.settings.options ?? []).length;
    question.settings = { ...question.settings, visible_options: Math.max(VISIBLE_OPTIONS_MIN_OPTIONS, Math.min(max, Math.round(value))) };
    this.version++;
  }

  setSuggestionsFirst(question: Question, value: boolean): void {
    question.settings = { ...question.settings, options_order: value ? "suggestion" : "natural" };
    this.version++;
  }

  /** Validation messages of an item, by part. */
  errors(item: Editable): { title: Message[]; description: Message[]; options: Message[] } {
    this.track();
    const v = item.validate() as { title: Message[]; description?: Message[]; options?: Message[] };
    const options = [...(v.options ?? [])];
    // Option labels may be edited but never emptied.
    if ("answer" in item && (item.settings.options ?? []).some((o: QuestionOption) => o.text !== undefined && o.text.trim() === ""))
      options.push(MESSAGES.optionsWithoutLabel);
    return { title: v.title, description: v.description ?? [], options };
  }

  /** Whether one span option's colour is invalid (not HSL). */
  colorInvalid(option: QuestionOption): boolean {
    return option.color !== undefined && !isHslColor(option.color);
  }

  isModified(item: Editable): boolean {
    this.track();
    return item.isModified;
  }

  canUpdate(item: Editable): boolean {
    const e = this.errors(item);
    return item.isModified && !this.saving.has(this.key(item)) && e.title.length + e.description.length + e.options.length === 0;
  }

  cancel(item: Editable): void {
    item.restore();
    this.outcomes.delete(this.key(item));
    this.version++;
  }

  async save(item: Editable): Promise<boolean> {
    if (!this.canUpdate(item)) return false;
    const kind = this.kindOf(item);
    const run = () => {
      switch (kind) {
        case "question":
          return this.useCases.updateQuestion.execute(item as Question);
        case "field":
          return this.useCases.updateField.execute(item as Field);
        case "metadata":
          return this.useCases.updateMetadata.execute(item as MetadataProperty);
        case "vector":
          return this.useCases.updateVector.execute(item as Vector);
      }
    };
    return this.run(this.key(item), run);
  }

  private async run(key: string, save: () => Promise<boolean>, after?: (ok: boolean) => Promise<void>): Promise<boolean> {
    runInAction(() => {
      this.saving.add(key);
    });
    let ok = false;
    try {
      ok = await save();
    } catch {
      ok = false;
    }
    runInAction(() => {
      this.saving.delete(key);
      this.outcomes.set(key, ok ? "saved" : "reverted");
      this.version++;
    });
    await after?.(ok);
    return ok;
  }

  // ---- danger zone ----

  askDelete(): void {
    this.confirmingDelete = true;
  }
  cancelDelete(): void {
    this.confirmingDelete = false;
  }

  async confirmDelete(): Promise<boolean> {
    const d = this.dataset;
    if (!d || this.deleting) return false;
    runInAction(() => {
      this.deleting = true;
    });
    try {
      await this.useCases.deleteDataset.execute(d.id);
      runInAction(() => {
        this.deleted = true;
        this.confirmingDelete = false;
      });
      return true;
    } catch {
      return false;
    } finally {
      runInAction(() => {
        this.deleting = false;
      });
    }
  }
}
