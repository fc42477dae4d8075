import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import type {
  AgreementFigure,
  AgreementReport,
  GetAgreementUseCase,
  QuestionAgreementReport,
  ReviewScope,
  SearchFilter,
} from "@tessera/domain";

export type RecordStatusFilter = "" | "pending" | "completed";

/** One cell of the annotator-pair matrix: the pair's headline figure for the chosen question. */
export interface MatrixCell {
  figure: AgreementFigure | null;
  records: number;
}

/**
 * The Agreement screen: the figures of a dataset restricted to chosen annotators, a record status
 * and the annotation page's metadata filters; the annotator-pair matrix of one question.
 */
export class AgreementViewModel {
  report: AgreementReport | null = null;
  loading = false;
  failed = false;
  /** Chosen annotators; empty = everyone. */
  selectedUsers: string[] = [];
  status: RecordStatusFilter = "";
  metadataFilters: SearchFilter[];
  /** The question of the pair matrix (name); the first question when empty. */
  matrixQuestion = "";
  private request = 0;

  constructor(
    private readonly datasetId: string,
    private readonly getAgreement: GetAgreementUseCase,
    metadataFilters: SearchFilter[] = [],
  ) {
    this.metadataFilters = metadataFilters;
    makeObservable<AgreementViewModel, "request">(this, {
      report: observableRef,
      known: observableRef,
      loading: observable,
      failed: observable,
      selectedUsers: observable,
      status: observable,
      metadataFilters: observableRef,
      matrixQuestion: observable,
      request: false,
      load: action,
      toggleUser: action,
      setStatus: action,
      dropMetadata: action,
      setMatrixQuestion: action,
      scope: computed,
      matrix: computed,
      annotators: computed,
    });
  }

  get scope(): ReviewScope {
    const filters: SearchFilter[] = [...this.metadataFilters];
    if (this.status) filters.push({ type: "terms", scope: { entity: "record", property: "status" }, values: [this.status] });
    return { userIds: this.selectedUsers, filters };
  }

  async load(): Promise<void> {
    const request = ++this.request;
    this.loading = true;
    this.failed = false;
    try {
      const report = await this.getAgreement.execute(this.datasetId, this.scope);
      runInAction(() => {
        if (request !== this.request) return;
        this.report = report;
        const ids = new Set(this.known.map((a) => a.id));
        this.known = [...this.known, ...report.annotators.filter((a) => !ids.has(a.id)).map((a) => ({ id: a.id, username: a.username }))];
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

  /** Every annotator seen in a report so far (so that choosing some never hides the others). */
  known: { id: string; username: string }[] = [];

  get annotators(): { id: string; username: string }[] {
    return [...this.known].sort((a, b) => a.username.localeCompare(b.username));
  }

  usernameOf(id: string): string {
    return this.annotators.find((a) => a.id === id)?.username ?? id.slice(0, 8);
  }

  toggleUser(id: string): void {
    this.selectedUsers = this.selectedUsers.includes(id) ? this.selectedUsers.filter((u) => u !== id) : [...this.selectedUsers, id];
    void this.load();
  }

  setStatus(status: RecordStatusFilter): void {
    this.status = status;
    void this.load();
  }

  dropMetadata(): void {
    this.metadataFilters = [];
    void this.load();
  }

  setMatrixQuestion(name: string): void {
    this.matrixQuestion = name;
  }

  get matrixFor(): QuestionAgreementReport | null {
    const questions = this.report?.questions ?? [];
    return questions.find((q) => q.name === this.matrixQuestion) ?? questions.find((q) => q.pairs.length > 0) ?? questions[0] ?? null;
  }

  /** Rows and columns: the annotators who have a pair on the matrix question; cells by pair. */
  get matrix(): { question: QuestionAgreementReport; users: string[]; cell: (a: string, b: string) => MatrixCell | null } | null {
    const question = this.matrixFor;
    if (!question) return null;
    const users = [...new Set(question.pairs.flatMap((p) => p.userIds))].sort((a, b) =>
      this.usernameOf(a).localeCompare(this.usernameOf(b)),
    );
    const byPair = new Map(question.pairs.map((p) => [[...p.userIds].sort().join("|"), p]));
    return {
      question,
      users,
      cell: (a, b) => {
        const pair = byPair.get([a, b].sort().join("|"));
        return pair ? { figure: pair.figures[question.pairMetric] ?? null, records: pair.records } : null;
      },
    };
  }
}

/** A figure for display: percentages for percent agreement, two decimals otherwise, null when undefined. */
export function formatFigure(metric: string, value: number | null | undefined, locale: string): string | null {
  if (value === null || value === undefined) return null;
  if (metric === "percent_agreement") return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(value);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
}
