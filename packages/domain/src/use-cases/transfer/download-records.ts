import type { RecordCriteria } from "../../criteria/record-criteria.js";
import type { RecordSearchBody } from "../../criteria/search-body.js";
import type { DownloadedFile, ExportFormat, RecordExportRepository } from "./ports.js";

export const DOWNLOAD_SCOPES = ["filtered", "all"] as const;
export type DownloadScope = (typeof DOWNLOAD_SCOPES)[number];

/**
 * Downloads a dataset's records as a file: those matching the annotation page's criteria (its
 * status, text search and filters; a similarity search and the sort do not apply to a download) or
 * all of them.
 */
export class DownloadRecordsUseCase {
  constructor(private readonly exports: RecordExportRepository) {}

  execute(criteria: RecordCriteria, format: ExportFormat, scope: DownloadScope): Promise<DownloadedFile> {
    return this.exports.download(criteria.datasetId, format, scope === "all" ? null : exportBody(criteria));
  }
}

/** The criteria's search body without the parts an export does not take (similarity, sort). */
export function exportBody(criteria: RecordCriteria): RecordSearchBody {
  const { query, filters } = criteria.toSearchBody();
  const body: RecordSearchBody = {};
  if (query?.text) body.query = { text: query.text };
  if (filters) body.filters = filters;
  return body;
}
