/** The benchmark dataset's ids, and one record as the SDK sends it (shared by api.ts and the body workers). */
import type { GeneratedRecord } from "./data.ts";

export interface BenchDataset {
  workspaceId: string;
  datasetId: string;
  questionIds: { sentiment: string; topics: string };
}

/** One record as the SDK's records.log sends it in PUT .../records/bulk (contract 5.6). */
export function upsertItem(record: GeneratedRecord, ds: BenchDataset): unknown {
  return {
    id: null,
    external_id: record.external_id,
    fields: record.fields,
    metadata: record.metadata,
    vectors: record.vectors,
    responses: [],
    suggestions: [
      {
        question_id: ds.questionIds.sentiment,
        question_name: "sentiment",
        type: "model",
        value: record.suggestions.sentiment.value,
        score: record.suggestions.sentiment.score,
        agent: "bench-model-v1",
      },
      {
        question_id: ds.questionIds.topics,
        question_name: "topics",
        type: "model",
        value: record.suggestions.topics.value,
        score: record.suggestions.topics.score,
        agent: "bench-model-v1",
      },
    ],
  };
}
