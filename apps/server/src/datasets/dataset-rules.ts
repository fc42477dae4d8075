import { z } from "zod";
import { conflict } from "../http/errors.js";

/** How a dataset's records are distributed among annotators (contract 3.4). */
export const DistributionSchema = z.object({
  strategy: z.literal("overlap"),
  min_submitted: z.number().int().min(1).max(1_000_000).default(1),
});
export type Distribution = z.infer<typeof DistributionSchema>;

export const DISTRIBUTION_WITH_RESPONSES_MESSAGE = "Distribution settings cannot be modified for a published dataset with responses";

export const duplicateDatasetName = (datasetName: string, workspaceId: string) =>
  conflict(`Dataset with name \`${datasetName}\` already exists for workspace with id \`${workspaceId}\``);
