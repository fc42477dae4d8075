/** Ports of the settings and creation extras (bound by the composition root in @tessera/infrastructure). */
export const SETTINGS_EXTRA_TOKENS = {
  DatasetActivityRepository: Symbol.for("tessera.DatasetActivityRepository"),
  HubSettingsRepository: Symbol.for("tessera.HubSettingsRepository"),
} as const;

export interface DatasetActivityRepository {
  /** GET /v1/datasets/{id}/users/progress: how many responses (any status) the dataset holds, over all users. */
  countResponses(datasetId: string): Promise<number>;
}

export interface HubSettingsRepository {
  /** GET /v1/hub/settings (public): the dataset viewer URL the browser calls directly. */
  getDatasetsServerUrl(): Promise<string>;
}
