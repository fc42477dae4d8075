/**
 * Builds the import's request bodies off the bench's main thread (see importRecords): generating and
 * serialising a record costs the client ~90 us, as much as the server spends storing it, so on the main
 * thread the client would share its core with the request loop and cap the measured throughput.
 */
import { parentPort } from "node:worker_threads";
import { upsertItem, type BenchDataset } from "./api.ts";
import { DatasetGenerator } from "./data.ts";

export interface BodyRequest { ds: BenchDataset; from: number; count: number }
export interface BodyReply { from: number; body: string; firstText: string }

const gen = new DatasetGenerator();
parentPort!.on("message", ({ ds, from, count }: BodyRequest) => {
  const records = Array.from({ length: count }, (_, k) => gen.record(from + k));
  const reply: BodyReply = { from, body: JSON.stringify({ items: records.map((r) => upsertItem(r, ds)) }), firstText: records[0]?.fields.text ?? "" };
  parentPort!.postMessage(reply);
});
