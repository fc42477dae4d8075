import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { Dataset, GetDatasetProgressUseCase, ListDatasetsUseCase, Progress } from "@tessera/domain";
import { paths } from "../../app/routes";

export type SortKey = "name" | "workspace" | "createdAt" | "updatedAt" | "progress";
export type SortDirection = "asc" | "desc";
export type ProgressState = Progress | "loading" | "failed";

/** The home page: 'Your datasets' with search, sorting and team progress, and the hub import box. */
export class HomeViewModel {
  datasets: Dataset[] = [];
  loading = true;
  failed = false;
  search = "";
  sortKey: SortKey = "updatedAt";
  sortDirection: SortDirection = "desc";
  progress = new Map<string, ProgressState>();
  repoId = "";

  constructor(
    private readonly listDatasets: ListDatasetsUseCase,
    private readonly getProgress?: GetDatasetProgressUseCase,
  ) {
    makeObservable(this, {
      datasets: observableRef,
      loading: observable,
      failed: observable,
      search: observable,
      sortKey: observable,
      sortDirection: observable,
      progress: observable,
      repoId: observable,
      visible: computed,
      isEmpty: computed,
      importPath: computed,
      load: action,
      setSearch: action,
      sortBy: action,
      setRepoId: action,
    });
  }

  async load(): Promise<void> {
    this.loading = true;
    this.failed = false;
    try {
      const datasets = await this.listDatasets.execute();
      runInAction(() => {
        this.datasets = datasets;
      });
      void this.loadProgress(datasets);
    } catch {
      runInAction(() => {
        this.failed = true;
      });
    } finally {
      runInAction(() => {
        this.loading = false;
      });
    }
  }

  private async loadProgress(datasets: Dataset[]): Promise<void> {
    const getProgress = this.getProgress;
    if (!getProgress) return;
    runInAction(() => {
      for (const d of datasets) this.progress.set(d.id, "loading");
    });
    await Promise.all(
      datasets.map(async (d) => {
        try {
          const p = await getProgress.execute(d.id);
          runInAction(() => this.progress.set(d.id, p));
        } catch {
          runInAction(() => this.progress.set(d.id, "failed"));
        }
      }),
    );
  }

  setSearch(value: string): void {
    this.search = value;
  }

  /** Clicking a column sorts by it; clicking it again flips the direction. Dates start newest first, text A–Z. */
  sortBy(key: SortKey): void {
    if (this.sortKey === key) this.sortDirection = this.sortDirection === "asc" ? "desc" : "asc";
    else {
      this.sortKey = key;
      this.sortDirection = key === "name" || key === "workspace" ? "asc" : "desc";
    }
  }

  get visible(): Dataset[] {
    const q = this.search.trim().toLowerCase();
    const filtered = q
      ? this.datasets.filter((d) => d.name.toLowerCase().includes(q) || d.workspaceName.toLowerCase().includes(q))
      : this.datasets;
    const factor = this.sortDirection === "asc" ? 1 : -1;
    const value = (d: Dataset): string | number => {
      switch (this.sortKey) {
        case "name":
          return d.name.toLowerCase();
        case "workspace":
          return d.workspaceName.toLowerCase();
        case "createdAt":
          return d.createdAt;
        case "updatedAt":
          return d.updatedAt;
        case "progress": {
          const p = this.progress.get(d.id);
          return typeof p === "object" ? p.percentCompleted : -1;
        }
      }
    };
    return [...filtered].sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      return (va < vb ? -1 : va > vb ? 1 : 0) * factor;
    });
  }

  get isEmpty(): boolean {
    return !this.loading && !this.failed && this.datasets.length === 0;
  }

  setRepoId(value: string): void {
    this.repoId = value;
  }

  /** Where the hub import goes: /new/<url-encoded repo id>, or null while the box is empty. */
  get importPath(): string | null {
    const id = this.repoId.trim();
    return id ? paths.newDataset(id) : null;
  }
}

/** The 'Import from Python' snippet with the user's API key and this server's origin. */
export function pythonSnippet(origin: string, apiKey: string): string {
  return ["import argilla as rg", "", "client = rg.Argilla(", `    api_url="${origin}",`, `    api_key="${apiKey}"`, ")"].join("\n");
}
