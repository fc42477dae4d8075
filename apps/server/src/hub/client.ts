import { z } from "zod";

/**
 * Client of the Hub dataset viewer API (datasets-server, hub.md section 1).
 *
 * SSRF: requests only go to the configured base URL. Paths come from a closed list, repo ids,
 * subsets and splits travel as query parameters, redirects are refused, and no URL found in a
 * request body or in dataset content is ever fetched.
 */
export interface HubClientOptions {
  /** e.g. `https://datasets-server.huggingface.co` or the fake hub's URL. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` (gated and private datasets). */
  token?: string | null;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** ResponseNotReady (cache not computed yet) is retried this many times (default 3)... */
  notReadyRetries?: number;
  /** ...after `retryDelayMs * n` (default 1000). */
  retryDelayMs?: number;
  fetch?: typeof fetch;
}

export type HubErrorKind =
  /** Unknown, private or gated repo, or unknown subset/split. */
  | "not_found"
  /** The viewer refused our parameters (422). */
  | "invalid_request"
  /** ResponseNotReady after the retries. */
  | "not_ready"
  /** Network error, timeout, redirect. */
  | "unreachable"
  /** Any other error status or an answer of an unexpected shape. */
  | "upstream";

export class HubError extends Error {
  override name = "HubError";
  constructor(
    readonly kind: HubErrorKind,
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** Hub repo ids: `name` or `owner/name`, letters, digits, `-`, `_`, `.`, at most 96 characters per part. */
export function isValidRepoId(id: string): boolean {
  return /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/.test(id) && !id.includes("..");
}

const featureItem = z.object({ feature_idx: z.number().optional(), name: z.string(), type: z.unknown() });
const rowItem = z.object({ row_idx: z.number(), row: z.record(z.string(), z.unknown()), truncated_cells: z.array(z.string()).optional() });

const splitsSchema = z.object({ splits: z.array(z.object({ dataset: z.string(), config: z.string(), split: z.string() })) });
const infoSchema = z.object({ dataset_info: z.record(z.string(), z.unknown()), partial: z.boolean().optional() });
const rowsSchema = z.object({
  features: z.array(featureItem),
  rows: z.array(rowItem),
  num_rows_total: z.number(),
  num_rows_per_page: z.number().optional(),
  partial: z.boolean().optional(),
});
const firstRowsSchema = z.object({ features: z.array(featureItem), rows: z.array(rowItem), truncated: z.boolean().optional() });
const isValidSchema = z.object({
  preview: z.boolean(),
  viewer: z.boolean(),
  search: z.boolean(),
  filter: z.boolean(),
  statistics: z.boolean(),
});
const statisticsSchema = z.object({
  num_examples: z.number(),
  statistics: z.array(z.object({ column_name: z.string(), column_type: z.string(), column_statistics: z.record(z.string(), z.unknown()) })),
  partial: z.boolean().optional(),
});

export type SplitsAnswer = z.infer<typeof splitsSchema>;
export type RowsPage = z.infer<typeof rowsSchema>;
export type FirstRows = z.infer<typeof firstRowsSchema>;
export type IsValid = z.infer<typeof isValidSchema>;
export type Statistics = z.infer<typeof statisticsSchema>;
export interface DatasetInfo {
  features?: Record<string, unknown>;
  splits?: Record<string, { name?: string; num_examples?: number }>;
  [key: string]: unknown;
}

/** The viewer's maximum page length for `/rows`. */
export const HUB_ROWS_PER_PAGE = 100;

type Endpoint = "/is-valid" | "/splits" | "/info" | "/first-rows" | "/rows" | "/statistics";

export class HubClient {
  private readonly base: URL;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: HubClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== "http:" && base.protocol !== "https:")
      throw new Error(`The Hub dataset viewer URL must be http(s): ${options.baseUrl}`);
    this.base = base;
    this.fetcher = options.fetch ?? fetch;
  }

  /** The origin every request goes to. */
  get origin(): string {
    return this.base.origin;
  }

  isValid(dataset: string, signal?: AbortSignal): Promise<IsValid> {
    return this.get("/is-valid", { dataset }, isValidSchema, signal);
  }

  splits(dataset: string, signal?: AbortSignal): Promise<SplitsAnswer> {
    return this.get("/splits", { dataset }, splitsSchema, signal);
  }

  /** The DatasetInfo of one subset (features, splits, ...). */
  async info(dataset: string, config: string, signal?: AbortSignal): Promise<DatasetInfo> {
    const answer = await this.get("/info", { dataset, config }, infoSchema, signal);
    return answer.dataset_info as DatasetInfo;
  }

  firstRows(dataset: string, config: string, split: string, signal?: AbortSignal): Promise<FirstRows> {
    return this.get("/first-rows", { dataset, config, split }, firstRowsSchema, signal);
  }

  async rows(dataset: string, config: string, split: string, offset: number, length: number, signal?: AbortSignal): Promise<RowsPage> {
    if (!Number.isInteger(offset) || offset < 0) throw new HubError("invalid_request", "offset must be a non-negative integer");
    if (!Number.isInteger(length) || length < 0 || length > HUB_ROWS_PER_PAGE)
      throw new HubError("invalid_request", `length must be an integer between 0 and ${HUB_ROWS_PER_PAGE}`);
    return this.get("/rows", { dataset, config, split, offset: String(offset), length: String(length) }, rowsSchema, signal);
  }

  statistics(dataset: string, config: string, split: string, signal?: AbortSignal): Promise<Statistics> {
    return this.get("/statistics", { dataset, config, split }, statisticsSchema, signal);
  }

  private async get<T extends z.ZodType>(
    endpoint: Endpoint,
    params: Record<string, string>,
    schema: T,
    signal?: AbortSignal,
  ): Promise<z.infer<T>> {
    if (!isValidRepoId(params.dataset ?? ""))
      throw new HubError("not_found", `\`${params.dataset ?? ""}\` is not a valid Hugging Face dataset id`);
    const url = new URL(this.base.pathname.replace(/\/$/, "") + endpoint, this.base.origin);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const retries = this.options.notReadyRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(url, schema, signal);
      } catch (error) {
        if (!(error instanceof HubError) || error.kind !== "not_ready" || attempt >= retries || signal?.aborted) throw error;
        await sleep((this.options.retryDelayMs ?? 1000) * (attempt + 1), signal);
      }
    }
  }

  private async once<T extends z.ZodType>(url: URL, schema: T, signal?: AbortSignal): Promise<z.infer<T>> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    let response: Response;
    try {
      response = await this.fetcher(url, { headers, redirect: "error", signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      const reason = timeout.aborted
        ? `no answer within ${this.options.timeoutMs ?? 30_000} ms`
        : error instanceof Error
          ? error.cause instanceof Error
            ? error.cause.message
            : error.message
          : String(error);
      throw new HubError("unreachable", `The Hugging Face Hub dataset viewer could not be reached (${reason})`);
    }
    const code = response.headers.get("x-error-code");
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (response.ok) {
      const parsed = schema.safeParse(body);
      if (!parsed.success)
        throw new HubError("upstream", `The Hugging Face Hub answered ${url.pathname} with an unexpected shape`, response.status);
      return parsed.data;
    }
    const detail =
      body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
        ? (body as { error: string }).error
        : `HTTP ${response.status}`;
    if (response.status === 401 || response.status === 404) throw new HubError("not_found", detail, response.status, code);
    if (response.status === 422) throw new HubError("invalid_request", detail, response.status, code);
    if (code === "ResponseNotReady") throw new HubError("not_ready", detail, response.status, code);
    throw new HubError(
      "upstream",
      `The Hugging Face Hub answered ${response.status}${code ? ` ${code}` : ""}: ${detail}`,
      response.status,
      code,
    );
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      },
      { once: true },
    );
  });
}
