/** Webhook delivery settings (docs/api.md, webhooks). */
export interface WebhookConfig {
  /** Timeout of one delivery attempt and of a ping (`TESSERA_WEBHOOKS_TIMEOUT_MS`, default 5000 as upstream). */
  timeoutMs: number;
}

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const timeout = Number(env.TESSERA_WEBHOOKS_TIMEOUT_MS ?? 5000);
  return { timeoutMs: Number.isFinite(timeout) && timeout >= 100 ? Math.min(timeout, 60_000) : 5000 };
}
