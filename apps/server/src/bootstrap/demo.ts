import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { claimsOf, type TokenService } from "../auth/tokens.js";

/**
 * Seeds a demo workspace and dataset on a fresh store (the `--demo` flag of `./tessera start`),
 * through the server's own public API with a token of the owner, so the demo data passes the same
 * validation as anything a user or the SDK sends. Does nothing when any dataset exists.
 */
export async function seedDemo(
  app: FastifyInstance,
  { db, tokens }: { db: Kysely<DB>; tokens: TokenService },
  seedOptions: { vectors?: boolean } = {},
): Promise<string | null> {
  // Without vector search (PostgreSQL lacking pgvector) a vector setting would stop the next start.
  const withVectors = seedOptions.vectors ?? true;
  if (await db.selectFrom("datasets").select("id").limit(1).executeTakeFirst()) return null;
  const owner = await db.selectFrom("users").selectAll().where("role", "=", "owner").orderBy("inserted_at").executeTakeFirst();
  if (!owner) return null;
  const authorization = `Bearer ${await tokens.sign(claimsOf(owner))}`;
  const call = async <T>(method: "GET" | "POST" | "PUT" | "PATCH", url: string, payload?: unknown): Promise<T> => {
    const res = await app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    if (res.statusCode >= 300) throw new Error(`demo seed: ${method} ${url} -> ${res.statusCode} ${res.body}`);
    return res.json<T>();
  };

  const workspaces = await call<{ items: { id: string; name: string }[] }>("GET", "/me/workspaces");
  const workspace =
    workspaces.items.find((w) => w.name === "demo") ?? (await call<{ id: string }>("POST", "/workspaces", { name: "demo" }));
  const dataset = await call<{ id: string }>("POST", "/datasets", { name: "movie-reviews", workspace_id: workspace.id });
  await call("PATCH", `/datasets/${dataset.id}`, {
    guidelines:
      "# Movie reviews\n\nRead each review and answer the questions.\n\n- **Sentiment**: the overall opinion of the reviewer.\n- **Topics**: every aspect the review talks about.\n- **Entities**: mark people and organisations in the text.",
    allow_extra_metadata: false,
    distribution: { strategy: "overlap", min_submitted: 1 },
  });
  await call("POST", `/datasets/${dataset.id}/fields`, {
    name: "review",
    title: "Review",
    required: true,
    settings: { type: "text", use_markdown: false },
  });
  await call("POST", `/datasets/${dataset.id}/fields`, {
    name: "context",
    title: "Context",
    required: false,
    settings: { type: "chat", use_markdown: false },
  });
  const questions = [
    {
      name: "sentiment",
      title: "What is the sentiment of the review?",
      required: true,
      settings: { type: "label_selection", options: options(["positive", "negative", "neutral"]) },
    },
    {
      name: "topics",
      title: "Which topics does it mention?",
      required: false,
      settings: { type: "multi_label_selection", options: options(["acting", "plot", "music", "visuals", "pacing"]), visible_options: 5 },
    },
    {
      name: "quality",
      title: "How useful is this review?",
      required: false,
      settings: { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) },
    },
    { name: "summary", title: "Summarise the review in one sentence", required: false, settings: { type: "text", use_markdown: true } },
    {
      name: "audience",
      title: "Rank the audiences it suits best",
      required: false,
      settings: { type: "ranking", options: options(["families", "teenagers", "critics"]) },
    },
    {
      name: "entities",
      title: "Mark people and organisations",
      required: false,
      settings: { type: "span", field: "review", options: options(["person", "organisation"]), allow_overlapping: false },
    },
  ];
  const questionIds: Record<string, string> = {};
  for (const q of questions) questionIds[q.name] = (await call<{ id: string }>("POST", `/datasets/${dataset.id}/questions`, q)).id;
  await call("POST", `/datasets/${dataset.id}/metadata-properties`, {
    name: "genre",
    title: "Genre",
    settings: { type: "terms", values: GENRES },
    visible_for_annotators: true,
  });
  await call("POST", `/datasets/${dataset.id}/metadata-properties`, {
    name: "year",
    title: "Year",
    settings: { type: "integer", min: 1950, max: 2026 },
    visible_for_annotators: true,
  });
  await call("POST", `/datasets/${dataset.id}/metadata-properties`, {
    name: "stars",
    title: "Stars given",
    settings: { type: "float", min: 0, max: 5 },
    visible_for_annotators: true,
  });
  if (withVectors)
    await call("POST", `/datasets/${dataset.id}/vectors-settings`, {
      name: "review_embedding",
      title: "Review embedding",
      dimensions: DEMO_VECTOR_DIMENSIONS,
    });
  await call("PUT", `/datasets/${dataset.id}/publish`);

  const items = Array.from({ length: 120 }, (_, i) => demoRecord(i, questionIds, withVectors));
  await call("POST", `/datasets/${dataset.id}/records/bulk`, { items });
  return dataset.id;
}

/** A small bag-of-words embedding (hashed words, L2-normalised): reviews sharing phrases end up similar. */
export const DEMO_VECTOR_DIMENSIONS = 32;
export function demoEmbedding(text: string): number[] {
  const v = new Array<number>(DEMO_VECTOR_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % DEMO_VECTOR_DIMENSIONS]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

const options = (values: string[]) => values.map((value) => ({ value, text: value }));
const GENRES = ["drama", "comedy", "thriller", "documentary", "animation"];
const OPENINGS = [
  "I went in with low expectations and",
  "My whole family watched it and",
  "As a long-time fan of the director, I",
  "Honestly,",
  "After the festival screening I",
];
const MIDDLES = [
  "the acting by Maria Lopez was outstanding",
  "the plot twists kept everyone guessing",
  "the soundtrack from Studio Aurora carried every scene",
  "the pacing dragged in the second half",
  "the visuals were breathtaking but the story felt thin",
];
const ENDINGS = [
  "I would watch it again.",
  "I left the cinema disappointed.",
  "it is a solid weekend choice.",
  "it deserves every award it gets.",
  "it was fine, nothing more.",
];

function demoRecord(i: number, questionIds: Record<string, string>, withVectors: boolean) {
  const pick = <T>(list: T[], salt: number): T => list[(i * 7 + salt * 3) % list.length]!;
  const review = `${pick(OPENINGS, 1)} ${pick(MIDDLES, 2)}; ${pick(ENDINGS, 3)}`;
  const sentiment = ["positive", "negative", "neutral"][i % 3]!;
  return {
    external_id: `demo-${i}`,
    fields: {
      review,
      context: [
        { role: "user", content: "Can you find me a review of this film?" },
        { role: "assistant", content: `Here is review number ${i + 1}.` },
      ],
    },
    ...(withVectors ? { vectors: { review_embedding: demoEmbedding(review) } } : {}),
    metadata: { genre: pick(GENRES, 4), year: 1990 + (i % 36), stars: Math.round((((i * 37) % 50) / 10) * 10) / 10 },
    suggestions: [
      { question_id: questionIds.sentiment, value: sentiment, score: 0.55 + ((i * 13) % 45) / 100, agent: "demo-sentiment-model" },
      {
        question_id: questionIds.topics,
        value: ["acting", "plot"].slice(0, 1 + (i % 2)),
        score: [0.8, 0.6].slice(0, 1 + (i % 2)),
        agent: "demo-topic-model",
      },
    ],
  };
}
