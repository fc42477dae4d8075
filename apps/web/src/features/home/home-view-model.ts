import { action, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { Dataset, ListDatasetsUseCase } from "@tessera/domain";

export class HomeViewModel {
  datasets: Dataset[] = [];
  loading = true;
  failed = false;

  constructor(private readonly listDatasets: ListDatasetsUseCase) {
    makeObservable(this, { datasets: observableRef, loading: observable, failed: observable, load: action });
  }

  async load(): Promise<void> {
    this.loading = true;
    this.failed = false;
    try {
      const datasets = await this.listDatasets.execute();
      runInAction(() => { this.datasets = datasets; });
    } catch {
      runInAction(() => { this.failed = true; });
    } finally {
      runInAction(() => { this.loading = false; });
    }
  }

  get isEmpty(): boolean { return !this.loading && !this.failed && this.datasets.length === 0; }
}
