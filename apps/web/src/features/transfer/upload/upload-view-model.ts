import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import {
  mapsAnything,
  proposeTargets,
  toMapping,
  type ColumnTarget,
  type DownloadedFile,
  type FileLike,
  type MappingSettings,
  type TargetKind,
  type UploadMapping,
  type UploadPreview,
  type UploadProgress,
} from "@tessera/domain";

export interface UploadUseCases {
  upload: { execute(file: FileLike): Promise<UploadPreview> };
  importUpload: { execute(uploadId: string, datasetId: string, mapping: UploadMapping): Promise<UploadProgress> };
  progress: { execute(uploadId: string): Promise<UploadProgress> };
  cancel: { execute(uploadId: string): Promise<UploadProgress> };
  failures: { execute(uploadId: string): Promise<DownloadedFile> };
}

export type UploadStep = "pick" | "uploading" | "preview" | "importing" | "done";
const SETTLED = ["finished", "failed", "cancelled"];

/**
 * Adding records from a file: pick or drop a file, see its typed columns and first rows, map the
 * columns onto the dataset (a first mapping is proposed), import as a background job with progress,
 * cancel it, download the rows that failed.
 */
export class UploadViewModel {
  step: UploadStep = "pick";
  preview: UploadPreview | null = null;
  targets = new Map<string, ColumnTarget>();
  progress: UploadProgress | null = null;
  /** The server's message for a refused file (names the row and column), or "" for a failure without one. */
  error: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly useCases: UploadUseCases,
    private readonly datasetId: string,
    readonly settings: MappingSettings,
    private readonly pollMs = 1000,
  ) {
    makeObservable<UploadViewModel, "poll">(this, {
      step: observable,
      preview: observableRef,
      targets: observable,
      progress: observableRef,
      error: observable,
      mapping: computed,
      canImport: computed,
      setTarget: action,
      reset: action,
      poll: action,
    });
  }

  get mapping(): UploadMapping {
    return toMapping(this.targets);
  }
  get canImport(): boolean {
    return this.step === "preview" && mapsAnything(this.mapping);
  }

  /** The names a target kind offers. */
  namesFor(kind: TargetKind): string[] {
    switch (kind) {
      case "field":
        return this.settings.fields;
      case "metadata":
        return this.settings.metadata;
      case "suggestion":
      case "response":
        return this.settings.questions;
      case "vector":
        return this.settings.vectors;
      default:
        return [];
    }
  }

  setTarget(column: string, kind: TargetKind, name?: string | null): void {
    const names = this.namesFor(kind);
    this.targets.set(column, {
      kind,
      name: name ?? (names.includes(this.targets.get(column)?.name ?? "") ? this.targets.get(column)!.name : (names[0] ?? null)),
    });
  }

  async pick(file: FileLike): Promise<void> {
    runInAction(() => {
      this.step = "uploading";
      this.error = null;
      this.preview = null;
      this.progress = null;
    });
    try {
      const preview = await this.useCases.upload.execute(file);
      runInAction(() => {
        this.preview = preview;
        this.targets = observable.map(proposeTargets(preview.columns, this.settings));
        this.step = "preview";
      });
    } catch (error) {
      runInAction(() => {
        this.error = (error as { detail?: string }).detail ?? "";
        this.step = "pick";
      });
    }
  }

  async start(): Promise<void> {
    if (!this.canImport || !this.preview) return;
    const id = this.preview.id;
    runInAction(() => {
      this.step = "importing";
      this.error = null;
    });
    try {
      const progress = await this.useCases.importUpload.execute(id, this.datasetId, this.mapping);
      runInAction(() => {
        this.progress = progress;
      });
      this.schedule(id);
    } catch {
      runInAction(() => {
        this.error = "";
        this.step = "preview";
      });
    }
  }

  private schedule(id: string): void {
    this.timer = setTimeout(() => {
      void this.poll(id);
    }, this.pollMs);
  }

  private async poll(id: string): Promise<void> {
    try {
      const progress = await this.useCases.progress.execute(id);
      runInAction(() => {
        this.progress = progress;
        if (SETTLED.includes(progress.status)) this.step = "done";
      });
      if (!SETTLED.includes(progress.status)) this.schedule(id);
    } catch {
      this.schedule(id);
    }
  }

  async cancel(): Promise<void> {
    if (!this.preview) return;
    const progress = await this.useCases.cancel.execute(this.preview.id).catch(() => null);
    if (progress)
      runInAction(() => {
        this.progress = progress;
      });
  }

  async downloadFailures(): Promise<void> {
    if (this.preview) await this.useCases.failures.execute(this.preview.id).catch(() => undefined);
  }

  reset(): void {
    this.dispose();
    this.step = "pick";
    this.preview = null;
    this.progress = null;
    this.error = null;
    this.targets = new Map();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
