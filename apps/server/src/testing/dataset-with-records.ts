import { recordItems, richDataset, type RichDataset } from "../records/testing.js";
import type { Json } from "./fixtures.js";
import { startTestServer, type TestServer } from "./test-server.js";

export interface DatasetWithRecords {
  server: TestServer;
  /** The published dataset with a question of every type, metadata, a vector and members (records/testing.ts). */
  d: RichDataset;
  /** The ids of the records created, in order. */
  ids: string[];
}

export interface DatasetWithRecordsOptions {
  /** External ids are `<prefix>-<i>` (default "r"). */
  prefix?: string;
  /** More keys for record i (metadata, suggestions, vectors ...). */
  extra?: (i: number) => Json;
  /** Records to create instead of the generated ones (`n` is then ignored). */
  items?: Json[];
  minSubmitted?: number;
  allowExtraMetadata?: boolean;
}

/**
 * The set-up most route tests repeat: a started test server, the rich dataset and `n` records in it
 * (`recordItems(n, prefix, extra)`: a text field about cats or dogs). The caller stops `server`.
 */
export async function datasetWithRecords(n: number, options: DatasetWithRecordsOptions = {}): Promise<DatasetWithRecords> {
  const server = await startTestServer();
  try {
    const d = await richDataset(server, {
      ...(options.minSubmitted !== undefined ? { minSubmitted: options.minSubmitted } : {}),
      ...(options.allowExtraMetadata !== undefined ? { allowExtraMetadata: options.allowExtraMetadata } : {}),
    });
    const ids = await d.f.records(d.datasetId, options.items ?? recordItems(n, options.prefix, options.extra));
    return { server, d, ids };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
