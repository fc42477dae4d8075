import type { BrowserContext, Page } from "playwright-core";
import { signIn, type RunningApp } from "./harness.js";

/** Seeding over the HTTP API and signing in through the page, shared by the e2e files. */

/**
 * One call to `/api/v1{path}`: JSON body, JSON answer (null when empty), an Error with the status and body
 * otherwise. `headers` replace the caller's bearer token (e.g. another user's `X-Argilla-Api-Key`).
 */
export type Api = <T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;

/** An access token from `POST /api/v1/token` (the owner's by default). */
export async function accessToken(app: RunningApp, username = "owner", password = app.ownerPassword): Promise<string> {
  const t = await fetch(`${app.url}/api/v1/token`, { method: "POST", body: new URLSearchParams({ username, password }) });
  return ((await t.json()) as { access_token: string }).access_token;
}

/** The API as the holder of `token`. */
export function apiWithToken(app: RunningApp, token: string): Api {
  return async <T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { Authorization: `Bearer ${token}` },
  ): Promise<T> => {
    const res = await fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}

/** The API as the owner. */
export async function ownerApi(app: RunningApp): Promise<Api> {
  return apiWithToken(app, await accessToken(app));
}

/** A new page in `context`, signed in through the sign-in page (as the owner by default) and on home. */
export async function signedInPage(
  context: BrowserContext,
  app: RunningApp,
  username = "owner",
  password = app.ownerPassword,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.url}/sign-in`);
  await signIn(page, app, username, password);
  await page.waitForURL(`${app.url}/`);
  return page;
}

/**
 * The schema of the "every question type" datasets: fields `text` and `notes` (markdown); questions
 * `sentiment` (required labels), `topics`, `quality` (rating 1-5), `preference` (ranking), `comment`
 * (markdown text) and `entities` (spans on text); vectors `emb` (3 dimensions). `describe` gives each
 * question the description "About <name>". Returns the sentiment question's id.
 */
export async function addEveryQuestionSchema(api: Api, datasetId: string, { describe = false } = {}): Promise<{ sentimentId: string }> {
  await api("POST", `/datasets/${datasetId}/fields`, {
    name: "text",
    title: "Text",
    required: true,
    settings: { type: "text", use_markdown: false },
  });
  await api("POST", `/datasets/${datasetId}/fields`, {
    name: "notes",
    title: "Notes",
    required: false,
    settings: { type: "text", use_markdown: true },
  });
  const q = async (name: string, required: boolean, settings: unknown) =>
    api<{ id: string }>("POST", `/datasets/${datasetId}/questions`, {
      name,
      title: name[0]!.toUpperCase() + name.slice(1),
      ...(describe ? { description: `About ${name}` } : {}),
      required,
      settings,
    });
  const sentiment = await q("sentiment", true, {
    type: "label_selection",
    options: [
      { value: "positive", text: "Positive" },
      { value: "negative", text: "Negative" },
      { value: "neutral", text: "Neutral" },
    ],
  });
  await q("topics", false, {
    type: "multi_label_selection",
    options: ["news", "sports", "politics", "science", "culture"].map((v) => ({ value: v, text: v })),
    visible_options: 3,
  });
  await q("quality", false, { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) });
  await q("preference", false, {
    type: "ranking",
    options: [
      { value: "a", text: "Answer A" },
      { value: "b", text: "Answer B" },
      { value: "c", text: "Answer C" },
    ],
  });
  await q("comment", false, { type: "text", use_markdown: true });
  await q("entities", false, {
    type: "span",
    field: "text",
    allow_overlapping: false,
    options: [
      { value: "person", text: "Person" },
      { value: "place", text: "Place" },
    ],
  });
  await api("POST", `/datasets/${datasetId}/vectors-settings`, { name: "emb", title: "Embedding", dimensions: 3 });
  return { sentimentId: sentiment.id };
}

/**
 * `count` records for that schema: the first is "Ada Lovelace lived in London", the others "Record number N about
 * cats|dogs"; external ids `<prefix>N`; a positive sentiment suggestion by model-x (0.87) where `suggested(i)`.
 */
export function everyQuestionRecords(
  count: number,
  externalIdPrefix: string,
  sentimentId: string,
  suggested: (i: number) => boolean,
): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    fields: {
      text: i === 0 ? "Ada Lovelace lived in London" : `Record number ${i + 1} about ${i % 2 ? "cats" : "dogs"}`,
      notes: `**note ${i + 1}**`,
    },
    external_id: `${externalIdPrefix}${i + 1}`,
    vectors: { emb: [1, i / count, (i % 3) / 3] },
    suggestions: suggested(i) ? [{ question_id: sentimentId, value: "positive", score: 0.87, agent: "model-x" }] : [],
  }));
}
