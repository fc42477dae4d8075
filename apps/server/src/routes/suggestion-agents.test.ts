import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { seedSearchData } from "../search/search-port.suite.js";
import { suggestionAgents } from "../records/use-cases/suggestion-agents.js";

/** The loose index scan gives what grouping every suggestion of the dataset gave. */
async function check(store: Store): Promise<void> {
  const db = store.db;
  const { ids, byExt } = await seedSearchData(store);
  const ts = "2024-01-01T00:00:00";
  const question = async (datasetId: string, name: string) => {
    const id = randomUUID();
    await db
      .insertInto("questions")
      .values({
        id,
        dataset_id: datasetId,
        name,
        title: name,
        description: null,
        required: 0,
        settings: '{"type":"text"}',
        inserted_at: ts,
        updated_at: ts,
      })
      .execute();
    return id;
  };
  const [alpha, zeta, empty, other] = [
    await question(ids.ds, "alpha"),
    await question(ids.ds, "zeta"),
    await question(ids.ds, "empty"),
    await question(ids.other, "other"),
  ];
  const suggest = (recordId: string, questionId: string, agent: string | null) =>
    db
      .insertInto("suggestions")
      .values({
        id: randomUUID(),
        record_id: recordId,
        question_id: questionId,
        value: '"x"',
        score: null,
        agent,
        type: null,
        inserted_at: ts,
        updated_at: ts,
      })
      .execute();
  await suggest(byExt.a!, alpha, "m2");
  await suggest(byExt.b!, alpha, "m1");
  await suggest(byExt.c!, alpha, null);
  await suggest(byExt.d!, alpha, "m2");
  await suggest(byExt.a!, zeta, null);
  await suggest(byExt.z!, other, "elsewhere");
  expect(await suggestionAgents(db, ids.ds)).toEqual([
    { question: { id: alpha, name: "alpha" }, agents: ["m1", "m2"] },
    { question: { id: ids.label, name: "label" }, agents: ["bert", "gpt"] },
    { question: { id: zeta, name: "zeta" }, agents: [] },
  ]);
  expect(empty).toBeTruthy();
  expect(await suggestionAgents(db, ids.other)).toEqual([{ question: { id: other, name: "other" }, agents: ["elsewhere"] }]);
}

describe("suggestion agents per question", () => {
  it("SQLite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-agents-"));
    const store = await openEmbeddedStore(dir);
    try {
      await check(store);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("PostgreSQL (PGlite)", async () => {
    const store = await openPgliteStore({ pgvector: false });
    try {
      await check(store);
    } finally {
      await store.close();
    }
  }, 60_000);
});
