/**
 * The import's client work, off the bench's main thread (see importRecords): generating and
 * serialising a record costs the client ~90 us, as much as the server spends storing it, and parsing
 * a 256-record response a few milliseconds; on the main thread both would take turns with the
 * server's work on the critical path of the sequential import.
 *
 * - `build`: the request body of records [from, from + count), returned as a string or, with `file`,
 *   appended to that file (the prebuilt mode: every body is written before the clock starts).
 * - `parse`: the record ids of a bulk response (its bytes are transferred, not copied).
 */
import { openSync, writeSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { upsertItem } from "./wire.ts";
import type { BodyReply, BodyRequest } from "./body-messages.ts";
import { DatasetGenerator } from "./data.ts";

const gen = new DatasetGenerator();
const files = new Map<string, { fd: number; size: number }>();
parentPort!.on("message", (msg: BodyRequest) => {
  if (msg.kind === "parse") {
    const ids = (JSON.parse(Buffer.from(msg.bytes).toString("utf8")) as { items: Array<{ id: string }> }).items.map((i) => i.id);
    parentPort!.postMessage({ kind: "parse", from: msg.from, ids } satisfies BodyReply);
    return;
  }
  const { ds, from, count, file } = msg;
  const records = Array.from({ length: count }, (_, k) => gen.record(from + k));
  const body = JSON.stringify({ items: records.map((r) => upsertItem(r, ds)) });
  const firstText = records[0]?.fields.text ?? "";
  if (!file) {
    parentPort!.postMessage({ kind: "build", from, body, firstText } satisfies BodyReply);
    return;
  }
  let out = files.get(file);
  if (!out) {
    out = { fd: openSync(file, "a"), size: 0 };
    files.set(file, out);
  }
  const bytes = Buffer.from(body, "utf8");
  writeSync(out.fd, bytes);
  parentPort!.postMessage({ kind: "build", from, file, offset: out.size, length: bytes.length, firstText } satisfies BodyReply);
  out.size += bytes.length;
});
