import { HubClient } from "./client.js";

/** Hub settings (docs/hub.md). */
export interface HubConfig {
  /** Base URL of the dataset viewer API: the real one, or the fake hub (`tools/fake-hub`) offline. */
  datasetsServerUrl: string;
  /** Hub token sent as bearer (gated or private datasets); `HF_TOKEN`. */
  token: string | null;
  /** Per-request timeout. */
  timeoutMs: number;
  /** Base back-off when the viewer answers ResponseNotReady. */
  retryDelayMs: number;
  /** Base back-off between retries of a failed background job. */
  jobsRetryDelayMs: number;
}

export const DEFAULT_DATASETS_SERVER_URL = "https://datasets-server.huggingface.co";

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(value) && value >= 0 ? value : fallback;
};

export function loadHubConfig(env: NodeJS.ProcessEnv): HubConfig {
  return {
    datasetsServerUrl: env.TESSERA_HUB_DATASETS_SERVER_URL || DEFAULT_DATASETS_SERVER_URL,
    token: env.HF_TOKEN || env.TESSERA_HUB_TOKEN || null,
    timeoutMs: positive(env.TESSERA_HUB_TIMEOUT_MS, 30_000),
    retryDelayMs: positive(env.TESSERA_HUB_RETRY_DELAY_MS, 1000),
    jobsRetryDelayMs: positive(env.TESSERA_JOBS_RETRY_DELAY_MS, 5000),
  };
}

export function createHubClient(hub: HubConfig): HubClient {
  return new HubClient({ baseUrl: hub.datasetsServerUrl, token: hub.token, timeoutMs: hub.timeoutMs, retryDelayMs: hub.retryDelayMs });
}
