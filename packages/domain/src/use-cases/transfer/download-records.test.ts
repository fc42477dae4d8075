import { describe, expect, it } from "vitest";
import { RecordCriteria } from "../../criteria/record-criteria.js";
import type { RecordSearchBody } from "../../criteria/search-body.js";
import { DownloadRecordsUseCase } from "./download-records.js";
import type { ExportFormat, RecordExportRepository } from "./ports.js";

class RecordingExports implements RecordExportRepository {
  calls: { datasetId: string; format: ExportFormat; body: RecordSearchBody | null }[] = [];
  async download(datasetId: string, format: ExportFormat, body: RecordSearchBody | null) {
    this.calls.push({ datasetId, format, body });
    return { filename: `x.${format}`, bytes: 1 };
  }
}

describe("DownloadRecordsUseCase", () => {
  const criteria = new RecordCriteria({
    datasetId: "d1",
    status: "submitted",
    searchText: " fox ",
    searchField: null,
    metadata: [{ kind: "terms", name: "genre", values: ["news"] }],
    sort: [{ key: { entity: "record", property: "inserted_at" }, order: "desc" }],
    similarity: { recordId: "r1", vectorName: "emb", limit: 50, order: "most" },
  });

  it("sends the page's status, text and filters, without the similarity query and the sort", async () => {
    const exports = new RecordingExports();
    expect(await new DownloadRecordsUseCase(exports).execute(criteria, "csv", "filtered")).toEqual({ filename: "x.csv", bytes: 1 });
    expect(exports.calls).toEqual([
      {
        datasetId: "d1",
        format: "csv",
        body: {
          query: { text: { q: "fox", field: null } },
          filters: {
            and: [
              { type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] },
              { type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] },
            ],
          },
        },
      },
    ]);
  });

  it("sends no criteria for all records", async () => {
    const exports = new RecordingExports();
    await new DownloadRecordsUseCase(exports).execute(criteria, "parquet", "all");
    expect(exports.calls).toEqual([{ datasetId: "d1", format: "parquet", body: null }]);
  });
});
