/** Ports used by the web app's shell (home, user settings, hosted-space detection). */

export interface WorkspaceSummary {
  id: string;
  name: string;
}

export interface MyWorkspacesRepository {
  /** GET /v1/me/workspaces; throws ERROR_FETCHING_WORKSPACES. */
  listMine(): Promise<WorkspaceSummary[]>;
}

/** The hosted space the app runs in (from GET /v1/settings), when it runs in one. */
export interface HostedSpace {
  id: string;
  title: string;
  subdomain: string;
  host: string;
  repoName: string;
  authorName: string;
  persistentStorageEnabled: boolean;
}

export interface Environment {
  hostedSpace: HostedSpace | null;
  showPersistentStorageWarning: boolean;
}

export interface EnvironmentRepository {
  /** GET /v1/settings (public); throws ERROR_FETCHING_ENVIRONMENT_SETTINGS. */
  getEnvironment(): Promise<Environment>;
}

export const SHELL_TOKENS = {
  MyWorkspacesRepository: Symbol.for("tessera.MyWorkspacesRepository"),
  EnvironmentRepository: Symbol.for("tessera.EnvironmentRepository"),
} as const;
