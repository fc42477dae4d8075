import { action, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { ListMyWorkspacesUseCase, RegenerateApiKeyUseCase, User, WorkspaceSummary } from "@tessera/domain";

/**
 * My settings: the user's workspaces and a new API key on request (the server keeps only a digest, so
 * a key is shown once, right after it is generated). The profile comes from the session, theme and
 * language from their view models.
 */
export class UserSettingsViewModel {
  workspaces: WorkspaceSummary[] = [];
  loadingWorkspaces = true;
  workspacesFailed = false;
  regenerating = false;
  regenerateFailed = false;

  constructor(
    private readonly listWorkspaces: ListMyWorkspacesUseCase,
    private readonly regenerate: RegenerateApiKeyUseCase,
  ) {
    makeObservable(this, {
      workspaces: observableRef,
      loadingWorkspaces: observable,
      workspacesFailed: observable,
      regenerating: observable,
      regenerateFailed: observable,
      load: action,
      regenerateApiKey: action,
    });
  }

  /** Rotates the key; `onUser` receives the user with the new key (the session keeps it until the next load). */
  async regenerateApiKey(user: User, onUser: (user: User) => void): Promise<void> {
    this.regenerating = true;
    this.regenerateFailed = false;
    try {
      const updated = await this.regenerate.execute(user);
      runInAction(() => {
        onUser(updated);
      });
    } catch {
      runInAction(() => {
        this.regenerateFailed = true;
      });
    } finally {
      runInAction(() => {
        this.regenerating = false;
      });
    }
  }

  async load(): Promise<void> {
    this.loadingWorkspaces = true;
    this.workspacesFailed = false;
    try {
      const list = await this.listWorkspaces.execute();
      runInAction(() => {
        this.workspaces = list;
      });
    } catch {
      runInAction(() => {
        this.workspacesFailed = true;
      });
    } finally {
      runInAction(() => {
        this.loadingWorkspaces = false;
      });
    }
  }
}
