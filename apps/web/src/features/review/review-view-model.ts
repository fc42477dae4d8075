import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import {
  DatasetRecord,
  ValidationError,
  type ClearFinalAnswerUseCase,
  type DatasetSettings,
  type GetReviewItemUseCase,
  type ListReviewRecordsUseCase,
  type ReviewItem,
  type ReviewProgressReport,
  type SearchFilter,
  type SubmitFinalAnswerUseCase,
} from "@tessera/domain";
import { FormController } from "../annotation/form-controller";

export type ReviewShow = "toReview" | "reviewed" | "all";
/** "" = disagreements on any question; "*" = every answered record; else a question name. */
export type ReviewQuestionFilter = string;
export const ALL_RECORDS = "*";

export interface ReviewUseCases {
  list: ListReviewRecordsUseCase;
  get: GetReviewItemUseCase;
  submit: SubmitFinalAnswerUseCase;
  clear: ClearFinalAnswerUseCase;
}

const REVIEWED: Record<ReviewShow, boolean | null> = { toReview: false, reviewed: true, all: null };

/**
 * Review mode: one record at a time among the records to review (disagreements by default), every
 * annotator's response, the suggestions and a form prefilled with the final answer or else the
 * majority; submitting stores the final answer (annotators' responses are never touched).
 */
export class ReviewViewModel {
  item: ReviewItem | null = null;
  record: DatasetRecord | null = null;
  total = 0;
  /** 0-based position in the list. */
  position = 0;
  progress: ReviewProgressReport | null = null;
  question: ReviewQuestionFilter = "";
  show: ReviewShow = "toReview";
  /** A record opened directly (from the Agreement screen), shown before the list. */
  pinned: string | null;
  /** The annotation page's metadata filters (carried in the URL): only the records matching them are reviewed. */
  metadataFilters: SearchFilter[];
  loading = false;
  failed = false;
  saving = false;
  /** i18n key of the last outcome, for the status line. */
  outcome: "saved" | "cleared" | "empty" | "failed" | null = null;
  readonly form = new FormController();
  private settings: DatasetSettings | null = null;
  private request = 0;

  constructor(
    private readonly datasetId: string,
    private readonly useCases: ReviewUseCases,
    options: { question?: string; show?: ReviewShow; record?: string; metadataFilters?: SearchFilter[] } = {},
  ) {
    this.metadataFilters = options.metadataFilters ?? [];
    this.question = options.question ?? "";
    this.show = options.show ?? "toReview";
    this.pinned = options.record ?? null;
    makeObservable<ReviewViewModel, "request" | "settings">(this, {
      item: observableRef,
      record: observableRef,
      total: observable,
      position: observable,
      progress: observableRef,
      question: observable,
      show: observable,
      pinned: observable,
      metadataFilters: observableRef,
      loading: observable,
      failed: observable,
      saving: observable,
      outcome: observable,
      request: false,
      settings: false,
      load: action,
      next: action,
      previous: action,
      setQuestion: action,
      setShow: action,
      dropMetadata: action,
      submit: action,
      clear: action,
      hasNext: computed,
      hasPrevious: computed,
    });
  }

  /** Settings (questions, fields) arrive from the dataset loader; the record form is built from them. */
  setSettings(settings: DatasetSettings): void {
    this.settings = settings;
    if (this.item) this.showItem(this.item);
  }

  get hasNext(): boolean {
    return this.pinned === null && this.position + 1 < this.total;
  }
  get hasPrevious(): boolean {
    return this.pinned === null && this.position > 0;
  }

  async load(): Promise<void> {
    const request = ++this.request;
    this.loading = true;
    this.failed = false;
    try {
      const list = await this.useCases.list.execute(this.datasetId, {
        question: this.question && this.question !== ALL_RECORDS ? this.question : null,
        disagreements: this.question !== ALL_RECORDS,
        reviewed: REVIEWED[this.show],
        ...(this.metadataFilters.length > 0 ? { filters: this.metadataFilters } : {}),
        offset: this.position,
        limit: 1,
      });
      let item = list.items[0] ?? null;
      if (this.pinned) item = await this.useCases.get.execute(this.pinned);
      runInAction(() => {
        if (request !== this.request) return;
        this.total = list.total;
        this.progress = list.review;
        if (!item && this.position > 0 && list.total > 0) {
          this.position = list.total - 1;
          void this.load();
          return;
        }
        this.showItem(item);
      });
    } catch {
      runInAction(() => {
        if (request === this.request) this.failed = true;
      });
    } finally {
      runInAction(() => {
        if (request === this.request) this.loading = false;
      });
    }
  }

  private showItem(item: ReviewItem | null): void {
    this.item = item;
    if (!item || !this.settings) {
      this.record = null;
      return;
    }
    const settings = this.settings;
    const record = new DatasetRecord(
      {
        id: item.record.id,
        datasetId: this.datasetId,
        fields: item.record.fields,
        metadata: item.record.metadata,
        response: null,
        suggestions: item.suggestions.map((s, i) => ({
          id: `${item.record.id}-${i}`,
          questionId: s.questionId,
          value: s.value,
          score: s.score,
          agent: s.agent,
        })),
        insertedAt: item.record.insertedAt,
        updatedAt: item.record.updatedAt,
        queryScore: null,
        taskStatus: item.record.status,
        externalId: item.record.externalId,
      },
      settings.questions.map((q) => q.toProps()),
      settings.fields.map((f) => f.toProps()),
      this.position + 1,
    );
    const prefill = item.finalAnswer?.values ?? item.majority;
    for (const q of record.questions) q.answer.set(prefill[q.name] ?? null);
    this.record = record;
    this.form.touch();
  }

  next(): void {
    if (this.hasNext) {
      this.position++;
      void this.load();
    }
  }
  previous(): void {
    if (this.hasPrevious) {
      this.position--;
      void this.load();
    }
  }

  /** Leaves a record opened from the Agreement screen for the list. */
  unpin(): void {
    runInAction(() => {
      this.pinned = null;
    });
    void this.load();
  }

  setQuestion(question: ReviewQuestionFilter): void {
    this.question = question;
    this.position = 0;
    this.pinned = null;
    void this.load();
  }
  setShow(show: ReviewShow): void {
    this.show = show;
    this.position = 0;
    this.pinned = null;
    void this.load();
  }
  /** Reviews every record again, not only those matching the annotation page's metadata filters. */
  dropMetadata(): void {
    this.metadataFilters = [];
    this.position = 0;
    this.pinned = null;
    void this.load();
  }

  async submit(): Promise<void> {
    const record = this.record;
    if (!record || this.saving) return;
    this.saving = true;
    this.outcome = null;
    try {
      const item = await this.useCases.submit.execute(record.id, record.valuesFor("submitted"));
      runInAction(() => {
        this.outcome = "saved";
      });
      // "To review" loses the record once it has a final answer: the next one takes its place
      if (this.pinned || this.show !== "toReview") runInAction(() => this.showItem(item));
      await this.load();
    } catch (error) {
      runInAction(() => {
        this.outcome = error instanceof ValidationError ? "empty" : "failed";
      });
    } finally {
      runInAction(() => {
        this.saving = false;
      });
    }
  }

  async clear(): Promise<void> {
    const record = this.record;
    if (!record || !this.item?.finalAnswer || this.saving) return;
    this.saving = true;
    this.outcome = null;
    try {
      const item = await this.useCases.clear.execute(record.id);
      runInAction(() => {
        this.outcome = "cleared";
        this.showItem(item);
      });
      await this.load();
    } catch {
      runInAction(() => {
        this.outcome = "failed";
      });
    } finally {
      runInAction(() => {
        this.saving = false;
      });
    }
  }
}
