import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import {
  MESSAGES,
  convertHubCell,
  hubSuggestionValue,
  serverName,
  uniqueServerName,
  type CreateDatasetUseCase,
  type DatasetCreation,
  type DatasetRecord,
  type FieldCreation,
  type FieldProps,
  type GetDatasetCreationUseCase,
  type GetFirstRecordFromHubUseCase,
  type GetWorkspacesUseCase,
  type HubSubset,
  type Message,
  type MetadataType,
  type QuestionCreation,
  type QuestionProps,
  type QuestionType,
  type SuggestionProps,
  type Workspace,
} from "@tessera/domain";
import { previewRecord } from "./preview-record";

export interface DatasetCreationUseCases {
  getCreation: Pick<GetDatasetCreationUseCase, "execute">;
  getFirstRow: Pick<GetFirstRecordFromHubUseCase, "execute">;
  getWorkspaces: Pick<GetWorkspacesUseCase, "execute">;
  create: Pick<CreateDatasetUseCase, "execute">;
}

/** What a column becomes: a field type, 'no mapping', or a metadata type. */
export type ColumnType = "text" | "image" | "chat" | "no mapping" | MetadataType;
export const COLUMN_TYPES: readonly ColumnType[] = ["text", "image", "chat", "no mapping", "terms", "integer", "float"];
const METADATA_TYPES: readonly string[] = ["terms", "integer", "float"];
export const ADDABLE_QUESTION_TYPES: readonly QuestionType[] = [
  "label_selection",
  "multi_label_selection",
  "rating",
  "ranking",
  "text",
  "span",
];
const WITH_LABELS: readonly QuestionType[] = ["label_selection", "multi_label_selection", "span", "ranking"];
export const NEW_WORKSPACE = "__new__";

export const SPAN_NEEDS_TEXT_FIELD: Message = {
  key: "datasetCreation.questions.span.needsTextField",
  text: "A span question needs a text field to annotate",
};
export const AT_LEAST_ONE_FIELD: Message = {
  key: "datasetCreation.atLeastOneField",
  text: "At least one column must be mapped to a field.",
};
export const AT_LEAST_ONE_REQUIRED_FIELD: Message = {
  key: "datasetCreation.atLeastOneRequiredField",
  text: "At least one field must be required.",
};

/** Question names must match the server's pattern (lower-case letters, digits, _ and -). */
export function questionName(raw: string): string {
  return serverName(raw, "question");
}

/**
 * Dataset creation from a Hub repository (`/new/:id`): loads the Hub dataset's subsets, splits and
 * features, proposes fields, questions and metadata (domain typing rules), lets the user map
 * columns, configure questions and pick a workspace, previews the first row, and runs the domain's
 * creation flow. `version` is bumped after every mutation of the (plain) creation model.
 */
export class DatasetCreationViewModel {
  state: "loading" | "ready" | "notFound" = "loading";
  creation: DatasetCreation | null = null;
  version = 0;
  firstRow: { [column: string]: unknown } = {};
  workspaces: Workspace[] = [];
  workspaceChoice = "";
  newWorkspaceName = "";
  /** Comma-separated labels as typed, by question name. */
  labelDrafts = new Map<string, string>();
  creating = false;
  failed = false;
  createdId: string | null = null;

  /**
   * `questionTitle` gives an added question its title in the user's language (the page passes i18next);
   * without it the title is the type with spaces and the number, e.g. "label selection 2".
   */
  constructor(
    readonly repoId: string,
    private readonly useCases: DatasetCreationUseCases,
    private readonly questionTitle: (type: QuestionType, n: number) => string = (type, n) => `${type.replace(/_/g, " ")} ${n}`,
  ) {
    makeObservable(this, {
      state: observable,
      creation: observableRef,
      version: observable,
      firstRow: observableRef,
      workspaces: observableRef,
      workspaceChoice: observable,
      newWorkspaceName: observable,
      labelDrafts: observable,
      creating: observable,
      failed: observable,
      createdId: observable,
      subset: computed,
      errors: computed,
      canCreate: computed,
      preview: computed,
      previewSuggestions: computed,
      load: action,
      selectSubset: action,
      selectSplit: action,
      setColumnType: action,
      setFieldRequired: action,
      setFieldMarkdown: action,
      setExternalId: action,
      addQuestion: action,
      removeQuestion: action,
      setQuestionTitle: action,
      setQuestionRequired: action,
      setQuestionColumn: action,
      setLabels: action,
      moveLabel: action,
      setRatingRange: action,
      setSpanField: action,
      setQuestionMarkdown: action,
      setName: action,
      chooseWorkspace: action,
      setNewWorkspaceName: action,
    });
  }

  track(): number {
    return this.version;
  }
  private touch(): void {
    this.version++;
  }

  get subset(): HubSubset | null {
    void this.version;
    return this.creation?.selectedSubset ?? null;
  }

  async load(): Promise<void> {
    this.state = "loading";
    let creation: DatasetCreation;
    try {
      creation = await this.useCases.getCreation.execute(this.repoId);
    } catch {
      runInAction(() => {
        this.state = "notFound";
      });
      return;
    }
    for (const s of creation.subsets) this.prepare(s);
    const workspaces = await this.useCases.getWorkspaces.execute().catch(() => [] as Workspace[]);
    runInAction(() => {
      this.creation = creation;
      this.workspaces = workspaces;
      this.workspaceChoice = workspaces[0]?.id ?? NEW_WORKSPACE;
      this.syncWorkspace();
      this.state = "ready";
      this.touch();
    });
    await this.loadFirstRow();
  }

  /** Server-safe question names, span questions on an existing text field. */
  private prepare(subset: HubSubset): void {
    const used = new Set<string>();
    for (const q of subset.questions) {
      q.name = uniqueServerName(questionName(q.name), used);
      used.add(q.name);
    }
    DatasetCreationViewModel.ensureRequiredField(subset);
  }

  /** Publishing needs a required field: the first mapped field is required when none is. */
  private static ensureRequiredField(subset: HubSubset): void {
    const fields = subset.fields.filter((f) => f.type !== "no mapping");
    if (fields.length > 0 && !fields.some((f) => f.required) && fields[0]) fields[0].required = true;
  }

  async loadFirstRow(): Promise<void> {
    const creation = this.creation;
    if (!creation) return;
    const row = await this.useCases.getFirstRow.execute(creation);
    runInAction(() => {
      this.firstRow = row;
      this.touch();
    });
  }

  selectSubset(name: string): void {
    this.creation?.selectSubset(name);
    this.touch();
    void this.loadFirstRow();
  }
  selectSplit(split: string): void {
    const s = this.subset;
    if (s && s.splits.includes(split)) {
      s.split = split;
      this.touch();
      void this.loadFirstRow();
    }
  }

  // ---- columns ----

  columnType(column: string): ColumnType {
    const s = this.subset;
    const metadata = s?.metadata.find((m) => m.column === column);
    if (metadata) return metadata.type;
    return s?.fields.find((f) => f.name === column)?.type ?? "no mapping";
  }

  /** The columns shown in the columns list: every column except those proposed as questions. */
  get listedColumns(): string[] {
    const s = this.subset;
    if (!s) return [];
    return s.columns.filter((c) => s.fields.some((f) => f.name === c) || s.metadata.some((m) => m.column === c));
  }

  /** Moves a column between field types, 'no mapping' and metadata types. */
  setColumnType(column: string, type: ColumnType): void {
    const s = this.subset;
    if (!s) return;
    const previous = s.fields.find((f) => f.name === column);
    s.fields = s.fields.filter((f) => f.name !== column);
    const previousMetadata = s.metadata.find((m) => m.column === column);
    s.metadata = s.metadata.filter((m) => m.column !== column);
    if (METADATA_TYPES.includes(type)) {
      s.addMetadata(column, type as MetadataType, previousMetadata?.title ?? column);
    } else {
      s.fields.push({
        name: column,
        title: previous?.title ?? column,
        required: type !== "no mapping" && (previous?.required ?? false),
        type: type as FieldCreation["type"],
        useMarkdown: previous?.useMarkdown ?? false,
      });
    }
    const order = (name: string) => {
      const i = s.columns.indexOf(name);
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    s.fields.sort((a, b) => order(a.name) - order(b.name));
    s.metadata.sort((a, b) => order(a.column) - order(b.column));
    // The placeholder 'prompt' field (no column) goes once a real column is a field.
    const mapped = s.fields.filter((f) => f.type !== "no mapping" && s.columns.includes(f.name));
    if (mapped.length > 0) s.fields = s.fields.filter((f) => s.columns.includes(f.name));
    const fields = s.fields.filter((f) => f.type !== "no mapping");
    if (fields.length === 1 && fields[0]) fields[0].required = true;
    DatasetCreationViewModel.ensureRequiredField(s);
    for (const q of s.questions)
      if (q.type === "span" && !this.textFields.includes(String(q.settings.field)))
        q.settings = { ...q.settings, field: this.textFields[0] ?? "" };
    this.touch();
  }

  field(column: string): FieldCreation | undefined {
    return this.subset?.fields.find((f) => f.name === column);
  }
  setFieldRequired(column: string, required: boolean): void {
    const f = this.field(column);
    if (f) {
      f.required = required;
      this.touch();
    }
  }
  setFieldMarkdown(column: string, value: boolean): void {
    const f = this.field(column);
    if (f) {
      f.useMarkdown = value;
      this.touch();
    }
  }

  get textFields(): string[] {
    return (this.subset?.fields ?? []).filter((f) => f.type === "text").map((f) => f.name);
  }

  setExternalId(column: string | null): void {
    const s = this.subset;
    if (s) {
      s.externalId = column;
      this.touch();
      void this.loadFirstRow();
    }
  }

  // ---- questions ----

  question(name: string): QuestionCreation | undefined {
    return this.subset?.questions.find((q) => q.name === name);
  }

  addQuestion(type: QuestionType): QuestionCreation | null {
    const s = this.subset;
    if (!s) return null;
    const q = s.addQuestion(type);
    let n = s.questions.filter((x) => x.type === type).length;
    let name = questionName(`${type}_${n}`);
    while (s.questions.some((x) => x !== q && x.name === name)) name = questionName(`${type}_${++n}`);
    q.name = name;
    q.title = this.questionTitle(type, n);
    if (type === "span") q.settings = { ...q.settings, field: this.textFields.includes("text") ? "text" : (this.textFields[0] ?? "") };
    this.touch();
    return q;
  }

  removeQuestion(name: string): void {
    this.subset?.removeQuestion(name);
    this.labelDrafts.delete(name);
    this.touch();
  }
  setQuestionTitle(name: string, title: string): void {
    const q = this.question(name);
    if (q) {
      q.title = title;
      this.touch();
    }
  }
  setQuestionRequired(name: string, required: boolean): void {
    const s = this.subset;
    const q = this.question(name);
    if (!s || !q) return;
    q.required = required;
    s.normalizeRequired();
    this.touch();
  }
  setQuestionColumn(name: string, column: string | null): void {
    const q = this.question(name);
    if (q) {
      q.column = column;
      this.touch();
    }
  }
  setQuestionMarkdown(name: string, value: boolean): void {
    const q = this.question(name);
    if (q) {
      q.settings = { ...q.settings, use_markdown: value };
      this.touch();
    }
  }

  hasLabels(q: QuestionCreation): boolean {
    return WITH_LABELS.includes(q.type);
  }
  labelsText(q: QuestionCreation): string {
    return this.labelDrafts.get(q.name) ?? q.options.map((o) => o.text ?? String(o.value)).join(", ");
  }

  /** Comma-separated labels; an empty item stays (and is reported as an empty option). */
  setLabels(name: string, text: string): void {
    const q = this.question(name);
    if (!q) return;
    this.labelDrafts.set(name, text);
    const labels = text.split(",").map((l) => l.trim());
    q.options = (labels.length === 1 && labels[0] === "" ? [] : labels).map((l) => ({ value: l, text: l }));
    this.touch();
  }

  /** Label order (drag and drop or up/down): moves the option at `from` to `to`; the labels text follows. */
  moveLabel(name: string, from: number, to: number): void {
    const q = this.question(name);
    if (!q || from === to || from < 0 || to < 0 || from >= q.options.length || to >= q.options.length) return;
    const options = [...q.options];
    const [moved] = options.splice(from, 1);
    if (!moved) return;
    options.splice(to, 0, moved);
    q.options = options;
    this.labelDrafts.delete(name);
    this.touch();
  }

  ratingRange(q: QuestionCreation): { from: number; to: number } {
    const values = q.options.map((o) => Number(o.value));
    return { from: values.length ? Math.min(...values) : 0, to: values.length ? Math.max(...values) : 0 };
  }

  /** Rating options are the integers from..to within 0..10. */
  setRatingRange(name: string, from: number, to: number): void {
    const q = this.question(name);
    if (!q) return;
    const lo = Math.max(0, Math.min(10, Math.round(from)));
    const hi = Math.max(0, Math.min(10, Math.round(to)));
    q.options = hi < lo ? [] : Array.from({ length: hi - lo + 1 }, (_, i) => ({ value: lo + i, text: String(lo + i) }));
    this.touch();
  }

  setSpanField(name: string, field: string): void {
    const q = this.question(name);
    if (q) {
      q.settings = { ...q.settings, field };
      this.touch();
    }
  }

  questionErrors(q: QuestionCreation): Message[] {
    void this.version;
    const errors = q.validate();
    if (q.type === "span" && !this.textFields.includes(String(q.settings.field ?? ""))) errors.push(SPAN_NEEDS_TEXT_FIELD);
    if (q.title.trim() === "") errors.push(MESSAGES.required);
    return errors;
  }

  // ---- dataset name and workspace ----

  setName(name: string): void {
    if (this.creation) {
      this.creation.name = name;
      this.touch();
    }
  }
  chooseWorkspace(choice: string): void {
    this.workspaceChoice = choice;
    this.syncWorkspace();
    this.touch();
  }
  setNewWorkspaceName(name: string): void {
    this.newWorkspaceName = name;
    this.syncWorkspace();
    this.touch();
  }

  private syncWorkspace(): void {
    const c = this.creation;
    if (!c) return;
    if (this.workspaceChoice === NEW_WORKSPACE) c.workspace = this.newWorkspaceName.trim() ? { name: this.newWorkspaceName.trim() } : null;
    else {
      const w = this.workspaces.find((x) => x.id === this.workspaceChoice);
      c.workspace = w ? { id: w.id, name: w.name } : null;
    }
  }

  // ---- validation, preview, creation ----

  /** The creation-level messages (questions, fields). */
  get errors(): Message[] {
    void this.version;
    const c = this.creation;
    if (!c) return [];
    const errors = c.validate();
    const s = c.selectedSubset;
    if (s.questions.some((q) => this.questionErrors(q).length > 0) && !errors.includes(MESSAGES.hasInvalidQuestions))
      errors.push(MESSAGES.hasInvalidQuestions);
    if (c.mapping.fields.length === 0) errors.push(AT_LEAST_ONE_FIELD);
    else if (!s.fields.some((f) => f.type !== "no mapping" && f.required)) errors.push(AT_LEAST_ONE_REQUIRED_FIELD);
    return errors;
  }

  get canCreate(): boolean {
    void this.version;
    const c = this.creation;
    return !!c && !this.creating && this.errors.length === 0 && c.name.trim() !== "" && c.workspace !== null;
  }

  /** The first row's cells converted by their features, as the import converts them. */
  private cell(column: string): unknown {
    return convertHubCell(this.subset?.features[column], this.firstRow[column]);
  }

  /**
   * The suggestions the import would store for the first row: one per question mapped to a column
   * (e.g. a class-label column suggested for a label question).
   */
  get previewSuggestions(): SuggestionProps[] {
    void this.version;
    const s = this.subset;
    if (!s) return [];
    const suggestions: SuggestionProps[] = [];
    for (const q of s.questions) {
      if (q.column === null || !q.isValid) continue;
      const value = hubSuggestionValue(q.type, this.cell(q.column));
      if (value !== null)
        suggestions.push({
          id: `hub-suggestion-${q.name}`,
          questionId: `q-${q.name}`,
          questionType: q.type,
          value,
          score: null,
          agent: null,
        });
    }
    return suggestions;
  }

  /** The first row as a record with the mapped fields, the configured questions and the suggestions of mapped columns. */
  get preview(): DatasetRecord | null {
    void this.version;
    const s = this.subset;
    if (!s) return null;
    const fields: FieldProps[] = [];
    for (const f of s.fields) {
      if (f.type === "no mapping") continue;
      fields.push({
        id: `f-${f.name}`,
        name: f.name,
        title: f.title || f.name,
        required: f.required,
        datasetId: "preview",
        settings: f.type === "image" ? { type: "image" } : { type: f.type, use_markdown: f.useMarkdown },
      });
    }
    const questions: QuestionProps[] = s.questions
      .filter((q) => q.isValid)
      .map((q) => ({
        id: `q-${q.name}`,
        name: q.name,
        datasetId: "preview",
        title: q.title || q.name,
        description: null,
        required: q.required,
        settings: q.toSettings(),
      }));
    const values = Object.fromEntries(Object.keys(this.firstRow).map((column) => [column, this.cell(column)]));
    return previewRecord(questions, fields, values, this.previewSuggestions);
  }

  async create(): Promise<string | null> {
    const c = this.creation;
    if (!c || !this.canCreate) return null;
    runInAction(() => {
      this.creating = true;
      this.failed = false;
    });
    const id = await this.useCases.create.execute(c).catch(() => null);
    runInAction(() => {
      this.creating = false;
      this.createdId = id;
      this.failed = id === null;
    });
    if (id === null) {
      // A workspace created on the way now exists: pick it next time.
      const workspaces = await this.useCases.getWorkspaces.execute().catch(() => this.workspaces);
      runInAction(() => {
        this.workspaces = workspaces;
      });
    }
    return id;
  }
}
