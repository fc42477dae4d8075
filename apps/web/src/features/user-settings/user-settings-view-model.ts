import { action, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { ListMyWorkspacesUseCase, WorkspaceSummary } from "@tessera/domain";

/** My settings: the user's workspaces (the profile comes from the session, theme and language from their view models). */
export class UserSettingsViewModel {
  workspaces: WorkspaceSummary[] = [];
  loadingWorkspaces = true;
  workspacesFailed = false;

  constructor(private readonly listWorkspaces: ListMyWorkspacesUseCase) {
    makeObservable(this, { workspaces: observableRef, loadingWorkspaces: observable, workspacesFailed: observable, load: action });
  }

  async load(): Promise<void> {
    this.loadingWorkspaces = true;
    this.workspacesFailed = false;
    try {
      const list = await this.listWorkspaces.execute();
      runInAction(() => { this.workspaces = list; });
    } catch {
      runInAction(() => { this.workspacesFailed = true; });
    } finally {
      runInAction(() => { this.loadingWorkspaces = false; });
    }
  }
}
