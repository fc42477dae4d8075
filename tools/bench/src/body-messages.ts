/** The messages between the bench and its body workers (body-worker.ts). */
import type { BenchDataset } from "./wire.ts";

export type BodyRequest =
  { kind: "build"; ds: BenchDataset; from: number; count: number; file?: string } | { kind: "parse"; from: number; bytes: ArrayBuffer };
export type BodyReply =
  | { kind: "build"; from: number; body?: string; file?: string; offset?: number; length?: number; firstText: string }
  | { kind: "parse"; from: number; ids: string[] };
