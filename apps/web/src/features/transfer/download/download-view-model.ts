import { action, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { DownloadedFile, DownloadScope, ExportFormat, RecordCriteria } from "@tessera/domain";

export interface DownloadRecords {
  execute(criteria: RecordCriteria, format: ExportFormat, scope: DownloadScope): Promise<DownloadedFile>;
}

/** The annotation page's Download dialog: format, which records, and the download's state. */
export class DownloadViewModel {
  open = false;
  format: ExportFormat = "jsonl";
  scope: DownloadScope = "filtered";
  busy = false;
  done: DownloadedFile | null = null;
  failed = false;

  constructor(
    private readonly download: DownloadRecords,
    private readonly criteria: () => RecordCriteria,
  ) {
    makeObservable(this, {
      open: observable,
      format: observable,
      scope: observable,
      busy: observable,
      done: observableRef,
      failed: observable,
      show: action,
      hide: action,
      setFormat: action,
      setScope: action,
    });
  }

  show(): void {
    this.open = true;
    this.done = null;
    this.failed = false;
  }
  hide(): void {
    this.open = false;
  }
  setFormat(format: ExportFormat): void {
    this.format = format;
  }
  setScope(scope: DownloadScope): void {
    this.scope = scope;
  }

  /** Downloads the records with the criteria on screen now (the page's status, search and filters). */
  async start(): Promise<void> {
    if (this.busy) return;
    runInAction(() => {
      this.busy = true;
      this.done = null;
      this.failed = false;
    });
    try {
      const file = await this.download.execute(this.criteria(), this.format, this.scope);
      runInAction(() => {
        this.done = file;
      });
    } catch {
      runInAction(() => {
        this.failed = true;
      });
    } finally {
      runInAction(() => {
        this.busy = false;
      });
    }
  }
}
