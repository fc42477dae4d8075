import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { generateRows } from "./generators.js";

/** A Hub `features` type, as JSON (hub.md 1.3): `{_type: ...}` objects, plain dicts, or legacy one-item arrays. */
export type Feature = { readonly [key: string]: unknown } | readonly unknown[];

export type { Row } from "./generators.js";
import type { Row } from "./generators.js";

export interface SplitSource {
  /** JSONL file next to the dataset descriptor. */
  file?: string;
  /** Rows generated deterministically from a seed (see generators.ts). */
  generator?: { name: string; seed: number; rows: number };
}

/** Descriptor of one fixture dataset (`datasets/<owner>__<name>.json`). */
export interface DatasetDescriptor {
  id: string;
  /** Gated: answers only to a request carrying one of the fake hub's valid tokens. */
  gated?: boolean;
  description?: string;
  license?: string;
  homepage?: string;
  citation?: string;
  /** Failure injection for tests. */
  failures?: {
    /** `/rows` answers 500 UnexpectedError for any offset at or above this one. */
    rowsFromOffset?: number;
    /** The first N `/rows` requests answer 500 ResponseNotReady. */
    notReadyTimes?: number;
  };
  configs: Record<string, { features: Record<string, Feature>; splits: Record<string, SplitSource> }>;
}

export interface SplitData {
  name: string;
  rows: Row[];
}
export interface ConfigData {
  name: string;
  features: Record<string, Feature>;
  splits: Map<string, SplitData>;
}
export interface DatasetData {
  id: string;
  revision: string;
  descriptor: DatasetDescriptor;
  configs: Map<string, ConfigData>;
}

export const DEFAULT_DATASETS_DIR = new URL("../datasets/", import.meta.url);

/** Loads every `*.json` descriptor of a directory with its rows (JSONL files or generated). */
export function loadCatalog(dir: string | URL = DEFAULT_DATASETS_DIR): Map<string, DatasetData> {
  const path = typeof dir === "string" ? dir : dir.pathname;
  const catalog = new Map<string, DatasetData>();
  for (const entry of readdirSync(path)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    const descriptor = JSON.parse(readFileSync(join(path, entry), "utf8")) as DatasetDescriptor;
    const configs = new Map<string, ConfigData>();
    for (const [configName, config] of Object.entries(descriptor.configs)) {
      const splits = new Map<string, SplitData>();
      for (const [splitName, source] of Object.entries(config.splits)) {
        splits.set(splitName, { name: splitName, rows: loadRows(path, source) });
      }
      configs.set(configName, { name: configName, features: config.features, splits });
    }
    const revision = createHash("sha1").update(descriptor.id).digest("hex");
    catalog.set(descriptor.id, { id: descriptor.id, revision, descriptor, configs });
  }
  return catalog;
}

function loadRows(dir: string, source: SplitSource): Row[] {
  if (source.generator) return generateRows(source.generator.name, source.generator.seed, source.generator.rows);
  if (source.file) {
    return readFileSync(join(dir, source.file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Row);
  }
  throw new Error("A split needs a `file` or a `generator`");
}
