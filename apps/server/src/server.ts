import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { loadConfig, type ServerConfig } from "./config.js";
import { openStore, type Store } from "./db/database.js";
import { loadSigningSecret } from "./auth/secrets.js";
import { TokenService } from "./auth/tokens.js";
import { createContext, type AppContext } from "./context.js";
import { buildApp } from "./app.js";
import { bootstrapOwner, type OwnerBootstrap } from "./bootstrap/owner.js";
import { seedDemo } from "./bootstrap/demo.js";
import { onRecordsWritten } from "./records/write-hooks.js";
import { textIndexFor } from "./search/text-index.js";
import { followWrites, warmUpDatasets } from "./search/warm-up.js";
import {
  rankAheadFor,
  textBucketsFor,
  textInlineFor,
  vectorWordsFor,
  textVocabularyFor,
  textHeadIndexFor,
  vectorIndexesFor,
  wordsTermsIndexFor,
  sortIndexesFor,
  textFieldIndexFor,
  metadataSortIndexesFor,
} from "./search/for-store.js";

/** Datasets warmed up at start (search/warm-up.ts), the most recently active first. */
const WARM_AT_START = 3;

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  owner: OwnerBootstrap | null;
  close(): Promise<void>;
}

/** The composition root of the server: store, secrets, context, routes, first-start bootstrap. */
export async function startServer(config: ServerConfig = loadConfig()): Promise<RunningServer> {
  const store = await openStore(config);
  try {
    return await startOn(store, config);
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function startOn(store: Store, config: ServerConfig): Promise<RunningServer> {
  const secret = await loadSigningSecret(store.db, config.authSecret);
  const ctx = createContext(store, new TokenService(secret, config.tokenExpirationSeconds), {
    ...config,
    webDist: config.webDist ?? defaultWebDist(),
  });
  const owner = await bootstrapOwner(store.db, config.ownerUsername, config.ownerPassword);
  const app = await buildApp(ctx);
  // Records stored but not full-text indexed before a restart (search/text-index.ts).
  const textIndex = textIndexFor(store.db);
  // Once the index has caught up after writes: what the written datasets' first page and similarity search need.
  textIndex?.onIdle((datasets) => warmUpDatasets(store.db, datasets));
  // After a restart nothing is in memory: the most recently active datasets are warmed up the same way.
  if (textIndex) {
    const recent = await store.db
      .selectFrom("datasets")
      .select("id")
      .where("status", "=", "ready")
      .orderBy("last_activity_at", "desc")
      .limit(WARM_AT_START)
      .execute();
    textIndex.touch(recent.map((d) => d.id));
  }
  textIndex?.start();
  // PostgreSQL: the frequent words of text search ranked ahead once a dataset's text settles (issue 31).
  const rankAhead = rankAheadFor(store);
  rankAhead?.start();
  // PostgreSQL with pgvector: each vector settings' IVFFlat index, built in the background (never by a search).
  const vectorIndexes = vectorIndexesFor(store);
  vectorIndexes?.start();
  // PostgreSQL with pgvector: the word signatures of vectors written before migration 0039, in small batches.
  const vectorWords = vectorWordsFor(store);
  vectorWords?.start();
  // PostgreSQL: the text vectors of records written before migration 0028 moved into their rows, in small batches.
  const textInline = textInlineFor(store);
  textInline?.start();
  // PostgreSQL: records_fts's index on (words, record ranges) of a database upgraded with records, built concurrently (migration 0030).
  const textBuckets = textBucketsFor(store);
  textBuckets?.start();
  // PostgreSQL: record_search's index of words and metadata terms of an upgraded database, built concurrently after that one (migration 0031).
  const wordsTerms = wordsTermsIndexFor(store);
  wordsTerms?.start();
  // PostgreSQL: the indexes in the order of the sorts of an upgraded database, built concurrently after those (migration 0036).
  const sortIndexes = sortIndexesFor(store);
  for (const index of sortIndexes) index.start();
  // PostgreSQL: records_fts's index with the fields' names of an upgraded database, built concurrently after those (migration 0037).
  const textField = textFieldIndexFor(store);
  textField?.start();
  // PostgreSQL: an index of records in each metadata property's order, built concurrently after those, dropped with the property.
  const metadataSorts = metadataSortIndexesFor(store);
  metadataSorts?.start();
  // PostgreSQL: each large dataset's vocabulary once its text settles, so that prefixes read the words they cover (issue 31).
  const textVocabulary = textVocabularyFor(store);
  textVocabulary?.start();
  // PostgreSQL: each large dataset's completed head's text in memory, so that phrases and prefixes count its matches there.
  const headIndex = textHeadIndexFor(store);
  headIndex?.start();
  // What the warm-up keeps follows each write once its response is out (search/warm-up.ts followWrites):
  // the warm-up after an import has the last batch left.
  let closing = false;
  if (store.dialect === "sqlite") {
    onRecordsWritten(store.db, (written) => {
      setImmediate(() => {
        if (closing) return;
        followWrites(store.db, written.datasetId).catch((error: unknown) => {
          if (!closing) console.error("search: following a write failed", error);
        });
      });
    });
  }
  if (config.seedDemo) await seedDemo(app, ctx, { vectors: store.vectorSearch });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    app,
    ctx,
    owner,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`,
    close: async () => {
      closing = true;
      await textIndex?.stop();
      await rankAhead?.stop();
      await vectorIndexes?.stop();
      await vectorWords?.stop();
      await textInline?.stop();
      await textBuckets?.stop();
      await wordsTerms?.stop();
      for (const index of sortIndexes) await index.stop();
      await textField?.stop();
      await metadataSorts?.stop();
      await textVocabulary?.stop();
      await headIndex?.stop();
      await app.close();
      await store.close();
    },
  };
}

function defaultWebDist(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, "../../web/dist"), join(here, "../../../apps/web/dist")]) {
    if (existsSync(join(candidate, "index.html"))) return candidate;
  }
  return null;
}
