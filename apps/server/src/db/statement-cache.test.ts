import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.js";

let sqlite: SQLite.Database;
afterEach(() => {
  if (sqlite.open) sqlite.close();
});

function open(size?: number) {
  sqlite = new SQLite(":memory:");
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  const database = withStatementCache(sqlite, size);
  return { database, db: new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database }) }) };
}

it("hands out the same compiled statement for the same SQL, bound to each run's parameters", async () => {
  const { database, db } = open();
  expect(database.prepare("SELECT v FROM t WHERE id = ?")).toBe(database.prepare("SELECT v FROM t WHERE id = ?"));
  await db.insertInto("t").values({ id: 1, v: "a" }).execute();
  await db.insertInto("t").values({ id: 2, v: "b" }).execute();
  expect((await db.selectFrom("t").select("v").where("id", "=", 1).executeTakeFirst())?.v).toBe("a");
  expect((await db.selectFrom("t").select("v").where("id", "=", 2).executeTakeFirst())?.v).toBe("b");
  await db.transaction().execute(async (trx) => {
    await trx.updateTable("t").set({ v: "c" }).where("id", "=", 2).execute();
  });
  expect(await db.selectFrom("t").select("v").orderBy("id").execute()).toEqual([{ v: "a" }, { v: "c" }]);
});

it("keeps at most `size` statements, dropping the least recently used", () => {
  const { database } = open(2);
  const one = database.prepare("SELECT 1");
  database.prepare("SELECT 2");
  expect(database.prepare("SELECT 1")).toBe(one);
  database.prepare("SELECT 3"); // drops SELECT 2, the least recently used
  expect(database.cached()).toBe(2);
  expect(database.prepare("SELECT 1")).toBe(one);
});

it("a statement still iterating (a streamed select) is not handed out again: the caller gets a fresh one", () => {
  const { database } = open();
  sqlite.exec("INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')");
  const first = database.prepare("SELECT v FROM t ORDER BY id") as unknown as SQLite.Statement;
  const rows = first.iterate();
  expect(rows.next().value).toEqual({ v: "a" });
  const second = database.prepare("SELECT v FROM t ORDER BY id") as unknown as SQLite.Statement;
  expect(second).not.toBe(first);
  expect(second.all()).toEqual([{ v: "a" }, { v: "b" }]);
  expect(rows.next().value).toEqual({ v: "b" });
  expect(rows.next().done).toBe(true);
  expect(database.prepare("SELECT v FROM t ORDER BY id")).toBe(first);
});

it("a cached statement follows schema changes (SQLite recompiles it)", async () => {
  const { db } = open();
  await db.insertInto("t").values({ id: 1, v: "a" }).execute();
  expect(await sql`SELECT * FROM t`.execute(db).then((r) => r.rows)).toEqual([{ id: 1, v: "a" }]);
  await sql`ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'x'`.execute(db);
  expect(await sql`SELECT * FROM t`.execute(db).then((r) => r.rows)).toEqual([{ id: 1, v: "a", w: "x" }]);
});
