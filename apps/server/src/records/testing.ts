import { Fixtures, type Actor, type Json } from "../testing/fixtures.js";
import type { TestServer } from "../testing/test-server.js";

/**
 * A published dataset with one question of every type, metadata properties of every type and a
 * 3-dimension vector, plus members of each role, for the records/responses/search route tests.
 */
export interface RichDataset {
  f: Fixtures;
  workspaceId: string;
  datasetId: string;
  questions: Record<"label" | "multi" | "rating" | "text" | "ranking" | "span", { id: string; name: string }>;
  vectorName: string;
  admin: Actor;
  annotator: Actor;
  annotator2: Actor;
  outsideAdmin: Actor;
}

export async function richDataset(
  server: TestServer,
  options: { minSubmitted?: number; allowExtraMetadata?: boolean } = {},
): Promise<RichDataset> {
  const f = new Fixtures(server);
  const ws = await f.workspace();
  const ds = await f.dataset(ws.id, {
    allow_extra_metadata: options.allowExtraMetadata ?? false,
    distribution: { strategy: "overlap", min_submitted: options.minSubmitted ?? 1 },
  });
  await f.field(ds.id, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  await f.field(ds.id, { name: "context", title: "Context", required: false, settings: { type: "text" } });
  const opts = (values: string[]) => values.map((value) => ({ value, text: value.toUpperCase() }));
  const q = async (name: string, required: boolean, settings: Json) => {
    const created = await f.question(ds.id, { name, title: name, required, settings });
    return { id: created.id, name: created.name };
  };
  const questions = {
    label: await q("label", true, { type: "label_selection", options: opts(["positive", "negative", "neutral"]) }),
    multi: await q("multi", false, { type: "multi_label_selection", options: opts(["a", "b", "c"]) }),
    rating: await q("rating", false, { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) }),
    text: await q("comment", false, { type: "text" }),
    ranking: await q("ranking", false, { type: "ranking", options: opts(["x", "y"]) }),
    span: await q("span", false, { type: "span", field: "text", options: opts(["PER", "ORG"]) }),
  };
  await f.metadataProperty(ds.id, { name: "genre", title: "Genre", settings: { type: "terms", values: ["news", "blog", "forum"] } });
  await f.metadataProperty(ds.id, {
    name: "words",
    title: "Words",
    settings: { type: "integer", min: 0, max: 1000 },
    visible_for_annotators: false,
  });
  await f.metadataProperty(ds.id, { name: "quality", title: "Quality", settings: { type: "float", min: 0, max: 1 } });
  const vector = await f.vectorSettings(ds.id, { name: "emb", title: "Embedding", dimensions: 3 });
  await f.publish(ds.id);
  const admin = await f.member(ws.id, "admin");
  const annotator = await f.member(ws.id, "annotator");
  const annotator2 = await f.member(ws.id, "annotator");
  const outsideAdmin = await f.user("admin");
  return { f, workspaceId: ws.id, datasetId: ds.id, questions, vectorName: vector.name, admin, annotator, annotator2, outsideAdmin };
}

/** `n` valid record items (external ids `prefix-i`). */
export function recordItems(n: number, prefix = "r", extra: (i: number) => Json = () => ({})): Json[] {
  return Array.from({ length: n }, (_, i) => ({
    external_id: `${prefix}-${i}`,
    fields: { text: `Record number ${i} about ${i % 2 === 0 ? "cats" : "dogs"}` },
    ...extra(i),
  }));
}

/** Two ready datasets whose records interleave (their seqs alternate in runs of 5 and 3), `n` records each to start with. */
export async function interleavedDatasets(fx: Fixtures, n: number) {
  const a = await fx.readyDataset();
  const b = await fx.readyDataset();
  const add = (ds: { datasetId: string; fieldName: string }, count: number, tag: string) =>
    fx.records(
      ds.datasetId,
      Array.from({ length: count }, (_, i) => ({ external_id: `${tag}-${i}`, fields: { [ds.fieldName]: `${tag} ${i}` } })),
    );
  for (let i = 0; i < n; i += 5) {
    await add(a, 5, `a${i}`);
    await add(b, 3, `b${i}`);
  }
  return { a, b, add };
}
