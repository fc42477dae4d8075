import { action, computed, makeObservable, observable, runInAction } from "mobx";
import { RESERVATION_TIMEOUT_MAX_SECONDS, reservationTimeoutProblem } from "@tessera/domain";

/** What the reservation time-out card needs from the domain (narrowed so tests can pass fakes). */
export interface ReservationTimeoutUseCases {
  load: { execute(datasetId: string): Promise<{ ttlSeconds: number }> };
  save: { execute(datasetId: string, ttlSeconds: number): Promise<number> };
}

export type TimeoutProblem = "notANumber" | "tooShort" | "tooLong";

/** Minutes as the card shows them: whole minutes plainly, otherwise up to two decimals. */
export const minutesText = (seconds: number): string => String(Math.round((seconds / 60) * 100) / 100);

/**
 * The dataset's reservation time-out on the settings page (issue 29): how long a record handed to an
 * annotator stays theirs without activity. Edited in minutes, checked by the domain's rule before
 * it is sent, saved on its own.
 */
export class ReservationTimeoutViewModel {
  state: "loading" | "ready" | "failed" = "loading";
  /** The time-out in force (seconds). */
  savedSeconds: number | null = null;
  draft = "";
  saving = false;
  outcome: "saved" | "failed" | null = null;

  constructor(
    private readonly datasetId: string,
    private readonly useCases: ReservationTimeoutUseCases,
  ) {
    makeObservable(this, {
      state: observable,
      savedSeconds: observable,
      draft: observable,
      saving: observable,
      outcome: observable,
      seconds: computed,
      problem: computed,
      modified: computed,
      canSave: computed,
      setDraft: action,
      cancel: action,
    });
  }

  async load(): Promise<void> {
    try {
      const { ttlSeconds } = await this.useCases.load.execute(this.datasetId);
      runInAction(() => {
        this.savedSeconds = ttlSeconds;
        this.draft = minutesText(ttlSeconds);
        this.state = "ready";
      });
    } catch {
      runInAction(() => {
        this.state = "failed";
      });
    }
  }

  /** The draft in seconds (rounded), or null when it is not a number. */
  get seconds(): number | null {
    const text = this.draft.trim().replace(",", ".");
    if (text === "" || !/^\d*\.?\d*$/.test(text)) return null;
    const minutes = Number(text);
    return Number.isFinite(minutes) ? Math.round(minutes * 60) : null;
  }

  get problem(): TimeoutProblem | null {
    const seconds = this.seconds;
    if (seconds === null) return "notANumber";
    const problem = reservationTimeoutProblem(seconds);
    return problem === "notWhole" ? "notANumber" : problem;
  }

  get modified(): boolean {
    return this.seconds !== this.savedSeconds;
  }

  get canSave(): boolean {
    return this.state === "ready" && this.modified && this.problem === null && !this.saving;
  }

  /** The largest time-out in minutes (the card's input bound). */
  readonly maxMinutes = RESERVATION_TIMEOUT_MAX_SECONDS / 60;

  setDraft(text: string): void {
    this.draft = text;
    this.outcome = null;
  }

  cancel(): void {
    if (this.savedSeconds !== null) this.draft = minutesText(this.savedSeconds);
    this.outcome = null;
  }

  async save(): Promise<void> {
    const seconds = this.seconds;
    if (!this.canSave || seconds === null) return;
    runInAction(() => {
      this.saving = true;
    });
    try {
      const saved = await this.useCases.save.execute(this.datasetId, seconds);
      runInAction(() => {
        this.savedSeconds = saved;
        this.draft = minutesText(saved);
        this.outcome = "saved";
      });
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
