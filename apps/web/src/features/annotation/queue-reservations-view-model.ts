import { computed, makeObservable, observable, runInAction } from "mobx";
import type { QueueReservations, RecordsQueue } from "@tessera/domain";

/** What the reservations of the annotation queue need from the domain (narrowed so tests can pass fakes). */
export interface QueueReservationsUseCases {
  renew: { execute(datasetId: string): Promise<void> };
  release: { execute(datasetId: string): Promise<void> };
}

/** The queue screen this view model follows: its records queue, whether it is loading, and how to load it again. */
export interface QueueHost {
  readonly datasetId: string;
  readonly queue: RecordsQueue | null;
  readonly loading: boolean;
  readonly revision: number;
  load(): Promise<void>;
}

/** How often the screen looks at its reservations (renewal due, records back for a starved annotator). */
export const RESERVATION_TICK_MS = 5_000;

/**
 * Reservations of the annotation queue (issue 29) on the annotation screen: the server reserves
 * the records it hands out; this keeps them while the annotator works (renewal within the
 * dataset's time-out, only after some activity, so that an abandoned tab lets them go), gives them
 * back when the annotator leaves, and, when teammates hold every remaining record, says so and
 * looks again until records come back.
 */
export class QueueReservationsViewModel {
  private lastActivity: number;
  private lastRenewal: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private released = false;
  /** Bumped on each look; observed so the starved state refreshes. */
  looks = 0;

  constructor(
    private readonly host: QueueHost,
    private readonly useCases: QueueReservationsUseCases,
    private readonly now: () => number = Date.now,
  ) {
    this.lastActivity = now();
    this.lastRenewal = now();
    makeObservable(this, { looks: observable, reservations: computed, starvedBy: computed });
  }

  /** What the last queue load said about reservations (null when the current queue does not reserve). */
  get reservations(): QueueReservations | null {
    void this.host.revision;
    return this.host.queue?.reservations ?? null;
  }

  /**
   * Teammates holding every record left to this annotator: 0 unless no pending record is left in
   * the queue (it may still show the ones just answered) while others hold records of it.
   */
  get starvedBy(): number {
    void this.host.revision;
    const r = this.reservations;
    const queue = this.host.queue;
    if (!r || !queue || r.heldByOthers.records === 0 || queue.isBuffering) return 0;
    if (queue.records.some((record) => record.status === "pending")) return 0;
    return Math.max(1, r.heldByOthers.teammates);
  }

  /** The annotator did something (key, pointer, answer): their reservations are renewed at the next tick that is due. */
  activity(): void {
    this.lastActivity = this.now();
  }

  start(): void {
    if (this.timer) return;
    this.released = false;
    this.timer = setInterval(() => {
      void this.tick();
    }, RESERVATION_TICK_MS);
  }

  /** One look: renews when due and the annotator was active since the last renewal; loads again when starved. */
  async tick(): Promise<void> {
    const r = this.reservations;
    if (!r || this.released) return;
    if (this.starvedBy > 0 && !this.host.loading) {
      await this.host.load();
      runInAction(() => {
        this.looks++;
      });
      return;
    }
    const due = this.now() - this.lastRenewal >= (r.ttlSeconds * 1000) / 3;
    if (due && this.lastActivity > this.lastRenewal) {
      this.lastRenewal = this.now();
      await this.useCases.renew.execute(this.host.datasetId).catch(() => undefined);
    }
  }

  /** The annotator leaves the dataset (or the page goes away): their records go back to the team. */
  leave(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // whatever the queue on screen now (a filtered one does not reserve), the plain queue may have reserved earlier
    if (this.released) return;
    this.released = true;
    void this.useCases.release.execute(this.host.datasetId).catch(() => undefined);
  }
}
