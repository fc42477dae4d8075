import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from "mobx";
import {
  RecordCriteria,
  type PageCriteria,
  RepositoryError,
  bulkAnswerValues,
  classifyFailure,
  normalizeSort,
  sameAnswer,
  type AnswerValues,
  type BulkAnnotateInput,
  type BulkAnnotateResult,
  type DatasetMetrics,
  type MetadataMetrics,
  type MetadataProperty,
  type SortItem,
  type DatasetRecord,
  type QuestionAgents,
  type RecordResponse,
  type RecordsQueue,
  type RecordStatus,
  type ResponseFilter,
  type ResponseStatus,
  type SimilarityCriteria,
  type SuggestionFilter,
  type ViewMode,
} from "@tessera/domain";
import { FormController } from "./form-controller";

/**
 * Where answers go (the app's `OfflineAnswersViewModel`): each one is kept on this device first and sent from
 * there in order; record forms are kept at every change and restored when shown again.
 */
export interface AnswerOutbox {
  /** Queues the answer; resolves with the server's response when it has it (rejects on a conflict or refusal). */
  send(record: DatasetRecord, status: ResponseStatus, values?: AnswerValues): Promise<RecordResponse>;
  keep(record: DatasetRecord): Promise<void>;
  restore(record: DatasetRecord): Promise<boolean>;
  holdsRestoredWork(record: DatasetRecord): boolean;
  isQueued(recordId: string): boolean;
  /** Whether the form changes so far are on this device's disk ("kept"), on their way ("keeping"), or cannot be kept ("failed"). */
  readonly formKept: "kept" | "keeping" | "failed";
  /** Every answer the server took, whichever tab sent it; `own`: given in this tab (else in another tab or an earlier page). */
  onDelivered(listener: (recordId: string, response: RecordResponse, own: boolean) => void): () => void;
}

/** What the page needs from the domain (the use cases, narrowed so tests can pass fakes). */
export interface AnnotationUseCases {
  loadRecords: {
    load(criteria: RecordCriteria): Promise<RecordsQueue>;
    paginate(criteria: RecordCriteria, queue: RecordsQueue): Promise<boolean>;
  };
  /** Submit, Save as draft, Discard (and bulk actions without a connection). */
  answers: AnswerOutbox;
  clear: { execute(record: DatasetRecord): Promise<void> };
  bulk: { execute(input: BulkAnnotateInput, onProgress?: (percent: number) => void): Promise<BulkAnnotateResult> };
  /** The user's own counts on the dataset (`GET /me/datasets/{id}/metrics`), for 'My progress'. */
  metrics?: { execute(datasetId: string): Promise<DatasetMetrics> };
  /** The suggestion agents per question (`GET /datasets/{id}/records/search/suggestions/options`), for the suggestion filter. */
  agents?: { execute(datasetId: string): Promise<QuestionAgents[]> };
  /** Observed terms or min/max of a metadata property (`GET /metadata-properties/{id}/metrics`), for the metadata filters. */
  metadataMetrics?: { execute(property: MetadataProperty): Promise<MetadataMetrics> };
}

export interface AnnotationOptions {
  /** Debounce of the draft autosave after a change (spec: a few seconds). */
  autosaveMs?: number;
  /** A response sent in the background failed (the page raises a toast with a way back to the record). */
  onSaveFailed?: (failure: FailedSave) => void;
  /** Answers given without a connection are kept on this device (bulk): how many. */
  onQueued?: (count: number) => void;
}

/** A submit or discard whose background save failed: the record keeps the user's answers until it is saved. */
export interface FailedSave {
  record: DatasetRecord;
  status: ResponseStatus;
}

export type SaveState = "idle" | "saving" | "saved";
export const PAGE_SIZES = [10, 25, 50, 100] as const;
/** Select-all-matched is offered up to this many records; confirmation above 100. */
export const SELECT_ALL_MAX = 1000;
export const CONFIRM_ABOVE = 100;

export interface Notice {
  key: string;
  params?: Record<string, string | number>;
  type: "success" | "danger";
}

/**
 * The annotation screen: criteria (status, search, filters, sort, similarity, page), the records
 * queue, the focus and bulk forms, draft autosave, the unsaved-changes guard and bulk actions.
 */
export class AnnotationViewModel {
  criteria: RecordCriteria;
  queue: RecordsQueue | null = null;
  /** Bumped whenever the (non-observable) queue or criteria change. */
  revision = 0;
  loading = true;
  /** Paging to records that are not in the queue yet (shown as loading, not as an empty queue). */
  fetching = false;
  failed = false;
  saveState: SaveState = "idle";
  /** An action (submit, discard, draft, clear) is in flight. */
  busy = false;
  /** 'You didn't submit your changes': what to do when the user ignores it. */
  guard: { proceed: () => void } | null = null;
  notice: Notice | null = null;
  // bulk
  selected = new Set<string>();
  allMatched = false;
  bulkProgress: number | null = null;
  confirmBulk: ResponseStatus | null = null;
  /** 'My progress': the user's counts from the server, refreshed after every response event. */
  metrics: DatasetMetrics | null = null;
  /** Bumped after every saved response (submit, discard, draft, autosave, clear, bulk). */
  responseEvents = 0;
  /** Suggestion agents per question (loaded once). */
  agents: QuestionAgents[] = [];
  /** Observed metrics of the (visible) metadata properties, by property name. */
  metadataMetrics = new Map<string, MetadataMetrics>();
  /** Background saves that failed, oldest first (shown, with 'Go to record' and 'Retry', until saved). */
  failedSaves: FailedSave[] = [];

  readonly form: FormController;
  private autosaveTimer: ReturnType<typeof setTimeout> | null = null;
  private autosaveRecord: DatasetRecord | null = null;
  /** Saves in flight, by record id (the outbox sends a record's answers one after the other). */
  private readonly saving = new Map<string, Promise<RecordResponse>>();
  private readonly stops: Array<() => void> = [];

  constructor(
    datasetId: string,
    private readonly useCases: AnnotationUseCases,
    initial?: RecordCriteria,
    private readonly options: AnnotationOptions = {},
  ) {
    this.criteria = initial ?? new RecordCriteria({ datasetId });
    this.form = new FormController((record) => this.changed(record));
    makeObservable<AnnotationViewModel, "bump">(this, {
      criteria: observableRef,
      queue: observableRef,
      revision: observable,
      loading: observable,
      fetching: observable,
      failed: observable,
      saveState: observable,
      busy: observable,
      guard: observableRef,
      notice: observableRef,
      selected: observable,
      allMatched: observable,
      bulkProgress: observable,
      confirmBulk: observable,
      metrics: observableRef,
      responseEvents: observable,
      agents: observableRef,
      responded: action,
      setResponseFilter: action,
      setSuggestionFilter: action,
      setSort: action,
      metadataMetrics: observable,
      failedSaves: observableRef,
      records: computed,
      current: computed,
      total: computed,
      totalIsLowerBound: computed,
      mode: computed,
      bump: action,
      load: action,
      next: action,
      previous: action,
      setStatus: action,
      setCriteria: action,
      toggleSelected: action,
      togglePage: action,
      selectAllMatched: action,
      clearSelection: action,
      setPageSize: action,
      setMode: action,
      dismissNotice: action,
      cancelGuard: action,
      ignoreGuard: action,
      cancelBulk: action,
      goToFailed: action,
      goToPage: action,
      showPage: action,
      restoredWork: computed,
    });
    // a record shown again gets the form kept on this device back (after a reload, a crash, a new sign-in)
    this.stops.push(
      reaction(
        () => (this.mode === "focus" ? this.current : null),
        (record) => {
          if (record) void this.restoreForm(record);
        },
        { fireImmediately: true },
      ),
    );
    // answers that land update the loaded copy of their record; work typed here is never moved onto an answer
    // given elsewhere (another tab, an earlier page): its Submit then meets the conflict, shown with both answers
    this.stops.push(
      useCases.answers.onDelivered((recordId, response, own) =>
        runInAction(() => {
          const record = this.queue?.records.find((r) => r.id === recordId);
          if (!record || (record.answer?.id === response.id && record.answer.updatedAt === response.updatedAt)) return;
          const sameHere = sameAnswer({ status: response.status, values: record.valuesFor(response.status) }, response);
          if (record.isModified && !own && !sameHere) return;
          // work typed here after this tab's own answer was queued builds on that answer
          if (record.isModified && own) record.answer = response;
          else {
            record.answerSaved(response);
            record.initialize();
          }
          this.bump();
        }),
      ),
    );
  }

  private async restoreForm(record: DatasetRecord): Promise<void> {
    if (await this.useCases.answers.restore(record)) runInAction(() => this.bump());
  }

  /** The record in focus holds work restored from this device that the server does not have. */
  get restoredWork(): boolean {
    void this.form.version;
    const r = this.current;
    return !!r && this.useCases.answers.holdsRestoredWork(r);
  }

  /** Whether the form changes so far are on this device's disk (see `AnswerOutbox.formKept`). */
  get formKept(): "kept" | "keeping" | "failed" {
    return this.useCases.answers.formKept;
  }

  /** The record's answer is kept on this device, waiting to be sent. */
  isQueued(record: DatasetRecord): boolean {
    void this.form.version;
    return this.useCases.answers.isQueued(record.id);
  }

  private bump(): void {
    this.revision++;
    this.form.touch();
  }

  get datasetId(): string {
    return this.criteria.datasetId;
  }

  /** Reloads 'My progress' from the server (errors keep the last counts). */
  async refreshMetrics(): Promise<void> {
    if (!this.useCases.metrics) return;
    try {
      const metrics = await this.useCases.metrics.execute(this.datasetId);
      runInAction(() => {
        this.metrics = metrics;
      });
    } catch {
      /* keep the last counts */
    }
  }

  /** Loads the suggestion agents per question once (errors leave the list empty). */
  async loadAgents(): Promise<void> {
    if (!this.useCases.agents) return;
    try {
      const agents = await this.useCases.agents.execute(this.datasetId);
      runInAction(() => {
        this.agents = agents;
      });
    } catch {
      /* no agent filter */
    }
  }

  /** Loads the observed terms or min/max of each metadata property given (those the user can see); failures leave it out. */
  async loadMetadataMetrics(properties: MetadataProperty[]): Promise<void> {
    const useCase = this.useCases.metadataMetrics;
    if (!useCase) return;
    await Promise.all(
      properties.map(async (property) => {
        try {
          const metrics = await useCase.execute(property);
          runInAction(() => {
            this.metadataMetrics.set(property.name, metrics);
          });
        } catch {
          /* the filter falls back to the property's settings */
        }
      }),
    );
  }

  /** Observed terms of a terms property (most frequent first), else its configured values. */
  metadataTerms(property: MetadataProperty): Array<string | number> {
    const m = this.metadataMetrics.get(property.name);
    if (m?.type === "terms") return m.terms.map((t) => t.term);
    return property.settings.values ?? [];
  }

  /** Observed min and max of a numeric property, else its configured bounds. */
  metadataRange(property: MetadataProperty): { min: number | null; max: number | null } {
    const m = this.metadataMetrics.get(property.name);
    if (m && m.type !== "terms" && (m.min !== null || m.max !== null)) return { min: m.min, max: m.max };
    return { min: property.settings.min ?? null, max: property.settings.max ?? null };
  }

  /** Replaces the sort list (repeated keys dropped, at most 10). */
  setSort(items: SortItem[]): void {
    this.setCriteria((c) => {
      c.sort = normalizeSort(items);
    });
  }

  agentsFor(question: string): string[] {
    return this.agents.find((a) => a.questionName === question)?.agents ?? [];
  }

  /** A response was saved: count the event and refresh 'My progress'. */
  responded(): void {
    this.responseEvents++;
    void this.refreshMetrics();
  }

  /** Sets (or with null removes) the response filter of a question. */
  setResponseFilter(question: string, filter: ResponseFilter | null): void {
    this.setCriteria((c) => {
      c.responses = [...c.responses.filter((r) => r.question !== question), ...(filter ? [filter] : [])];
    });
  }

  /** Sets (or with null removes) the suggestion filter of a question on one property (value, score or agent). */
  setSuggestionFilter(question: string, property: SuggestionFilter["property"], filter: SuggestionFilter | null): void {
    this.setCriteria((c) => {
      c.suggestions = [...c.suggestions.filter((s) => s.question !== question || s.property !== property), ...(filter ? [filter] : [])];
    });
  }

  get mode(): ViewMode {
    void this.revision;
    return this.criteria.page.mode;
  }

  /** The records shown: one in focus, a page in bulk. */
  get records(): DatasetRecord[] {
    void this.revision;
    return this.queue ? this.queue.recordsOn(this.criteria) : [];
  }

  get current(): DatasetRecord | null {
    return this.records[0] ?? null;
  }
  get total(): number {
    void this.revision;
    return this.queue?.total ?? 0;
  }
  /** More records match than `total` (the server counts a text search's matches only up to a bound): shown as "N+". */
  get totalIsLowerBound(): boolean {
    void this.revision;
    return this.queue?.totalIsLowerBound ?? false;
  }
  get reference(): DatasetRecord | null {
    void this.revision;
    return this.queue?.reference ?? null;
  }

  get hasPrevious(): boolean {
    void this.revision;
    return !this.criteria.page.isFirstPage && !this.loading;
  }
  get hasNext(): boolean {
    void this.revision;
    if (!this.queue || this.records.length === 0) return false;
    return (
      this.queue.recordsAhead(this.criteria) > 0 ||
      this.queue.isBuffering ||
      this.queue.totalIsLowerBound ||
      this.criteria.page.page + this.criteria.page.shown - 1 < this.queue.total
    );
  }

  // ---------- loading and navigation ----------

  /** First load of the screen: the records, 'My progress' and the suggestion agents. */
  async init(): Promise<void> {
    await Promise.all([this.load(), this.refreshMetrics(), this.loadAgents()]);
  }

  async load(): Promise<void> {
    this.loading = true;
    this.failed = false;
    this.clearSelection();
    // Criteria can change again while this load is in flight (quick filter or sort changes); only the
    // answer for the criteria still on screen may replace the queue, whatever order answers arrive in.
    const criteria = this.criteria;
    try {
      const queue = await this.useCases.loadRecords.load(criteria);
      if (criteria !== this.criteria) return;
      runInAction(() => {
        this.queue = queue;
        this.loading = false;
        this.bump();
      });
    } catch {
      if (criteria !== this.criteria) return;
      runInAction(() => {
        this.loading = false;
        this.failed = true;
        this.queue = null;
        this.bump();
      });
    }
  }

  /** Runs a navigation unless the current submitted record has unsaved changes (then asks first). */
  private guarded(go: () => void): void {
    const record = this.current;
    if (this.mode === "focus" && record && record.isSubmitted && record.isModified) {
      this.guard = { proceed: go };
      return;
    }
    this.flushAutosave();
    go();
  }

  cancelGuard(): void {
    this.guard = null;
  }
  ignoreGuard(): void {
    const guard = this.guard;
    this.guard = null;
    const record = this.current;
    record?.reset();
    if (record) void this.useCases.answers.keep(record); // the changes are given up: so is their kept copy
    this.bump();
    guard?.proceed();
  }

  next(): void {
    if (this.hasNext) this.guarded(() => this.paginate("next"));
  }
  previous(): void {
    if (this.hasPrevious) this.guarded(() => this.paginate("previous"));
  }
  /**
   * Shows the page a URL names (browser Back / Forward): the same criteria, the page's position and,
   * between focus and bulk, its mode and size (a mode change otherwise starts at the first page).
   */
  showPage(page: PageCriteria): void {
    const current = this.criteria.page;
    if (page.mode === current.mode && page.size === current.size) return this.goToPage(page.page);
    this.guarded(() => {
      const next = this.criteria.clone();
      next.page = page.clone();
      runInAction(() => {
        this.criteria = next;
        this.bump();
      });
      void this.load();
    });
  }

  /** Shows the position a URL names (browser Back / Forward): the same criteria, another page. */
  goToPage(page: number): void {
    if (page === this.criteria.page.page) return;
    this.guarded(() => {
      this.criteria.page.goTo(page);
      this.paginate("stay");
    });
  }

  private paginate(direction: "next" | "previous" | "stay"): void {
    const queue = this.queue;
    if (!queue) return;
    if (direction === "next") this.criteria.page.next();
    if (direction === "previous") this.criteria.page.previous();
    this.clearSelection();
    this.fetching = !queue.hasRecordsFor(this.criteria);
    this.bump(); // shows a prefetched record at once
    void this.useCases.loadRecords
      .paginate(this.criteria, queue)
      .then((found) =>
        runInAction(() => {
          if (!found && direction === "next") this.criteria.page.previous();
          this.fetching = false;
          this.bump();
        }),
      )
      .catch(() =>
        runInAction(() => {
          this.fetching = false;
          this.failed = true;
          this.bump();
        }),
      );
  }

  /** Replaces the criteria (filters, search, sort, status, similarity) and reloads from page 1. */
  setCriteria(update: (c: RecordCriteria) => void): void {
    this.guarded(() => {
      const next = this.criteria.clone();
      update(next);
      next.page.goToFirst();
      runInAction(() => {
        this.criteria = next;
        this.bump();
      });
      void this.load();
    });
  }

  /** Changing the status filter forces focus view. */
  setStatus(status: RecordStatus): void {
    this.setCriteria((c) => {
      c.status = status;
      c.page.mode = "focus";
    });
  }

  setMode(mode: ViewMode): void {
    if (mode === this.mode) return;
    this.setCriteria((c) => {
      c.page.mode = mode;
    });
  }

  setPageSize(size: number): void {
    const valid = (PAGE_SIZES as readonly number[]).includes(size) ? size : 10;
    this.setCriteria((c) => {
      c.page.size = valid;
    });
  }

  findSimilar(similarity: SimilarityCriteria | null): void {
    this.setCriteria((c) => {
      c.similarity = similarity;
    });
  }

  // ---------- focus actions ----------

  private changed(record: DatasetRecord): void {
    if (this.mode === "focus") void this.useCases.answers.keep(record); // every change is kept on this device at once
    if (record.isSubmitted) return; // a submitted record is not auto-saved; the guard protects it
    if (this.mode === "bulk") return;
    this.scheduleAutosave(record);
  }

  private scheduleAutosave(record: DatasetRecord): void {
    if (this.autosaveTimer) clearTimeout(this.autosaveTimer);
    this.autosaveRecord = record;
    this.autosaveTimer = setTimeout(() => {
      void this.autosave();
    }, this.options.autosaveMs ?? 2500);
  }

  private cancelAutosave(): void {
    if (this.autosaveTimer) clearTimeout(this.autosaveTimer);
    this.autosaveTimer = null;
    this.autosaveRecord = null;
  }

  /** Saves a pending autosave right away (e.g. before leaving the record). */
  flushAutosave(): void {
    if (this.autosaveTimer) {
      clearTimeout(this.autosaveTimer);
      this.autosaveTimer = null;
      void this.autosave();
    }
  }

  /** Whether a save is in flight or waiting (for the beforeunload prompt). */
  get hasUnsavedWork(): boolean {
    return this.autosaveTimer !== null || this.saveState === "saving" || this.saving.size > 0;
  }

  /**
   * Saves the record's response through the outbox (kept on this device at once, sent in order, create or
   * update with conflict detection). Resolves when the server has it. A success clears an earlier failure.
   */
  private save(record: DatasetRecord, status: ResponseStatus): Promise<RecordResponse> {
    // until it lands, the queue counts the record as possibly answered (its buffer loads stay exact)
    const queue = this.queue;
    queue?.saving(record.id);
    const run = this.useCases.answers.send(record, status).then((response) => {
      record.answerSaved(response);
      runInAction(() => {
        if (this.failedSaves.some((f) => f.record === record)) this.failedSaves = this.failedSaves.filter((f) => f.record !== record);
        this.bump();
      });
      return response;
    });
    this.saving.set(record.id, run);
    const done = () => {
      if (this.saving.get(record.id) !== run) return;
      this.saving.delete(record.id);
      queue?.settled(record.id);
    };
    run.then(done, done);
    return run;
  }

  /** A background save failed: keep the record (with its answers) and tell the user. A conflict is chosen on in the outbox panel instead. */
  private saveFailed(record: DatasetRecord, status: ResponseStatus, error?: unknown): void {
    if (error instanceof Error && error.name === "AnswerConflictError") {
      runInAction(() => this.bump());
      return;
    }
    const failure: FailedSave = { record, status };
    runInAction(() => {
      this.failedSaves = [...this.failedSaves.filter((f) => f.record !== record), failure];
      this.bump();
    });
    this.options.onSaveFailed?.(failure);
  }

  /** Whether the record's last background save failed. */
  isFailed(record: DatasetRecord): boolean {
    return this.failedSaves.some((f) => f.record === record);
  }

  /** Back to a record whose save failed, with the answers the user gave (put back in the queue if it was dropped). */
  goToFailed(failure: FailedSave): void {
    const queue = this.queue;
    if (!queue) return;
    this.guarded(() =>
      runInAction(() => {
        if (queue.recordAt(failure.record.page) !== failure.record) queue.append([failure.record]);
        this.criteria.page.goTo(failure.record.page);
        this.clearSelection();
        this.bump();
      }),
    );
  }

  /** The annotator kept the server's answer over theirs (a conflict): the loaded record shows it. */
  adoptServerAnswer(recordId: string, response: RecordResponse | null): void {
    const record = this.queue?.records.find((r) => r.id === recordId);
    runInAction(() => {
      if (record) {
        if (response) {
          record.answerSaved(response);
          record.initialize();
        } else record.markPending();
        this.failedSaves = this.failedSaves.filter((f) => f.record !== record);
      }
      this.bump();
    });
    this.responded();
  }

  /** Sends a failed response again, in the background. */
  async retryFailed(failure: FailedSave): Promise<boolean> {
    try {
      await this.save(failure.record, failure.status);
      runInAction(() => {
        this.bump();
        this.responded();
      });
      return true;
    } catch (error) {
      this.saveFailed(failure.record, failure.status, error);
      return false;
    }
  }

  private async autosave(): Promise<void> {
    const record = this.autosaveRecord;
    this.autosaveTimer = null;
    this.autosaveRecord = null;
    if (!record || !record.isModified || record.isSubmitted) return;
    runInAction(() => {
      this.saveState = "saving";
    });
    try {
      await this.save(record, "draft");
      runInAction(() => {
        this.saveState = "saved";
        this.bump();
        this.responded();
      });
    } catch {
      runInAction(() => {
        this.saveState = "idle";
      });
    }
  }

  get canSubmit(): boolean {
    void this.form.version;
    const r = this.current;
    return !!r && !this.busy && r.questionsAreCompletedCorrectly && (!r.isSubmitted || r.isModified);
  }
  get canDiscard(): boolean {
    void this.form.version;
    const r = this.current;
    return !!r && !this.busy && !r.isDiscarded;
  }
  get canSaveDraft(): boolean {
    void this.form.version;
    const r = this.current;
    return !!r && !this.busy && (r.isModified || !r.isDraft);
  }

  /**
   * Submit, discard or save as draft the focused record. Submit and discard show the next
   * (prefetched) record at once and send the response in the background: 'My progress' refreshes
   * when it lands, a failure is reported (`failedSaves`, `onSaveFailed`) with the answers kept.
   * Resolves when the response is saved (true) or failed (false).
   */
  async act(status: ResponseStatus): Promise<boolean> {
    const record = this.current;
    if (!record || this.busy) return false;
    if (status === "submitted" && !this.canSubmit) return false;
    if (status === "discarded" && !this.canDiscard) return false;
    this.cancelAutosave();
    if (status === "draft") {
      // kept on this device at once; without a connection it waits there (the form says so) and the annotator goes on
      runInAction(() => {
        this.saveState = "saving";
      });
      try {
        await this.save(record, status);
        runInAction(() => {
          this.saveState = "saved";
          this.bump();
          this.responded();
        });
        return true;
      } catch (error) {
        runInAction(() => {
          this.saveState = "idle";
          this.bump();
        });
        if (error instanceof Error && error.name === "AnswerRefusedError") this.saveFailed(record, status, error);
        return false;
      }
    }
    const saving = this.save(record, status);
    runInAction(() => {
      this.saveState = "idle";
      if (this.hasNext) this.paginate("next");
      else this.bump();
    });
    try {
      await saving;
      runInAction(() => {
        this.bump();
        this.responded();
      });
      return true;
    } catch (error) {
      this.saveFailed(record, status, error);
      return false;
    }
  }

  async clear(): Promise<void> {
    const record = this.current;
    if (!record || this.busy) return;
    this.cancelAutosave();
    runInAction(() => {
      this.busy = true;
    });
    try {
      await this.saving.get(record.id)?.catch(() => undefined); // a response on its way lands first
      await this.useCases.clear.execute(record);
      void this.useCases.answers.keep(record); // nothing left to keep
      runInAction(() => this.responded());
    } finally {
      runInAction(() => {
        this.busy = false;
        this.saveState = "idle";
        this.bump();
      });
    }
  }

  reset(): void {
    this.cancelAutosave();
    const record = this.current;
    record?.reset();
    if (record) void this.useCases.answers.keep(record); // back to the server's answers: the kept form is forgotten
    this.bump();
  }

  // ---------- bulk ----------

  isSelected(record: DatasetRecord): boolean {
    return this.allMatched || this.selected.has(record.id);
  }
  get selectedCount(): number {
    return this.allMatched ? this.total : this.records.filter((r) => this.selected.has(r.id)).length;
  }
  get pageSelected(): boolean {
    return this.records.length > 0 && this.records.every((r) => this.selected.has(r.id));
  }

  toggleSelected(record: DatasetRecord): void {
    this.allMatched = false;
    if (this.selected.has(record.id)) this.selected.delete(record.id);
    else this.selected.add(record.id);
  }

  togglePage(): void {
    const all = this.pageSelected;
    this.allMatched = false;
    this.selected.clear();
    if (!all) for (const r of this.records) this.selected.add(r.id);
  }

  /** 'Select all {total} matched records': whole page selected, a filter active, more than the page, at most 1000. */
  get canSelectAllMatched(): boolean {
    void this.revision;
    const c = this.criteria;
    const filtered = c.isFilteredByText || c.metadata.length + c.responses.length + c.suggestions.length > 0;
    return (
      this.pageSelected &&
      !this.allMatched &&
      filtered &&
      !this.totalIsLowerBound &&
      this.total > this.records.length &&
      this.total <= SELECT_ALL_MAX
    );
  }

  selectAllMatched(): void {
    if (this.canSelectAllMatched) this.allMatched = true;
  }
  clearSelection(): void {
    this.selected.clear();
    this.allMatched = false;
  }
  dismissNotice(): void {
    this.notice = null;
  }
  cancelBulk(): void {
    this.confirmBulk = null;
  }

  get canBulkAct(): boolean {
    return this.selectedCount > 0 && this.bulkProgress === null;
  }

  /** Bulk submit, discard or draft. All-matched with more than 100 records asks for confirmation first. */
  async bulkAct(status: ResponseStatus, confirmed = false): Promise<void> {
    const reference = this.records[0];
    if (!reference || !this.canBulkAct) return;
    if (status === "submitted" && !reference.questionsAreCompletedCorrectly) return;
    if (this.allMatched && this.total > CONFIRM_ABOVE && !confirmed) {
      runInAction(() => {
        this.confirmBulk = status;
      });
      return;
    }
    const all = this.allMatched;
    const total = this.total;
    const selection = all ? ("all" as const) : this.records.filter((r) => this.selected.has(r.id));
    runInAction(() => {
      this.confirmBulk = null;
      this.bulkProgress = 0;
      this.notice = null;
    });
    try {
      const result = await this.useCases.bulk.execute(
        { criteria: this.criteria, answers: reference, selection, status, onScreen: this.records },
        (p) =>
          runInAction(() => {
            this.bulkProgress = p;
          }),
      );
      runInAction(() => {
        if (!result.allSucceeded) this.notice = { key: "annotation.bulk.someFailed", type: "danger" };
        else if (all) this.notice = { key: `annotation.bulk.done.${status}`, params: { total }, type: "success" };
      });
    } catch (error) {
      // no connection (or the server is down): the selected records' answers are kept on this device and sent later
      const unreachable = error instanceof RepositoryError && classifyFailure(error.status) === "unreachable";
      if (selection !== "all" && unreachable) {
        this.queueBulk(selection, status, bulkAnswerValues({ answers: reference, status, onScreen: this.records }));
        runInAction(() => {
          this.bulkProgress = null;
          this.clearSelection();
        });
        return;
      }
      runInAction(() => {
        this.notice = { key: all && unreachable ? "offline.allNeedsConnection" : "annotation.bulk.someFailed", type: "danger" };
      });
    } finally {
      runInAction(() => {
        this.bulkProgress = null;
        this.responded();
      });
    }
    await this.load();
  }

  /** Bulk answers given without a connection: each goes into the outbox, in the order shown. */
  private queueBulk(records: DatasetRecord[], status: ResponseStatus, valuesOf: (record: DatasetRecord) => AnswerValues): void {
    for (const record of records) {
      this.useCases.answers
        .send(record, status, valuesOf(record))
        .then((response) => {
          record.answerSaved(response);
          record.initialize(true);
          runInAction(() => {
            this.bump();
            this.responded();
          });
        })
        .catch(() => runInAction(() => this.bump()));
    }
    runInAction(() => {
      this.notice = { key: "offline.bulkQueued", params: { count: records.length }, type: "success" };
    });
    this.options.onQueued?.(records.length);
  }

  dispose(): void {
    this.flushAutosave();
    for (const stop of this.stops.splice(0)) stop();
  }
}
