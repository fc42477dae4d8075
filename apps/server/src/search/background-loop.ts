/**
 * A background job's loop (the PostgreSQL similarity indexes' builds, the text vectors' rewrite): `work`
 * at once and then every `tickMs` on an unref'd interval (it never keeps the process alive), never two
 * runs at a time; a run's failure goes to `report` unless the loop was stopped meanwhile.
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly report: (error: unknown) => void,
  ) {}

  /** Runs `work` now and every `tickMs` (a tick while a run is in progress is skipped); once only. */
  start(tickMs: number): void {
    if (this.timer || this.stopped) return;
    const look = () => {
      if (this.running) return;
      this.running = this.work()
        .catch((error: unknown) => {
          if (!this.stopped) this.report(error);
        })
        .finally(() => {
          this.running = null;
        });
    };
    look();
    this.timer = setInterval(look, tickMs);
    this.timer.unref();
  }

  /** No more runs after the one in progress (the job has nothing left to do). */
  finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** No more runs, and no report of a failure from now on; resolves when the run in progress has ended. */
  stop(): Promise<void> {
    this.stopped = true;
    this.finish();
    return this.running ?? Promise.resolve();
  }
}
