import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { isMember } from "../auth/policies.js";
import { unprocessable } from "../http/errors.js";
import type { DatasetSchema } from "./dataset-schema.js";

/**
 * THE record visibility rule (spec section 6; issues 21 and 28), applied wherever records, responses
 * or metadata leave the server (records/read.ts `withIncludes` takes a viewer and applies it, so a
 * route cannot serialize a record without saying who looks at it):
 *
 * - the owner and the admins who are members of the dataset's workspace see everything;
 * - anybody else who reaches the dataset (its annotators) sees only their own responses, and only
 *   the metadata keys of properties that are `visible_for_annotators` (undeclared extra keys are
 *   hidden too), and may neither filter nor sort by a hidden property (422).
 */
export interface RecordViewer {
  userId: string;
  /** "all": every user's responses; "own": only `userId`'s. */
  responses: "all" | "own";
  /** "all": every metadata key; "visible": keys of properties visible for annotators only. */
  metadata: "all" | "visible";
}

/** Does this caller manage the workspace (owner, or admin member)? */
export async function managesWorkspace(db: Kysely<DB>, user: UserRow, workspaceId: string): Promise<boolean> {
  if (user.role === "owner") return true;
  return user.role === "admin" && (await isMember(db, user, workspaceId));
}

/** The viewer of a caller who has already passed the route's access check on the workspace. */
export async function recordViewer(db: Kysely<DB>, user: UserRow, workspaceId: string): Promise<RecordViewer> {
  return (await managesWorkspace(db, user, workspaceId))
    ? { userId: user.id, responses: "all", metadata: "all" }
    : { userId: user.id, responses: "own", metadata: "visible" };
}

/** The `/me/...` views: the caller's own responses whatever their role, the rest as their viewer. */
export const ownResponsesOnly = (viewer: RecordViewer): RecordViewer => ({ ...viewer, responses: "own" });

/** Server-side readers with no caller (the Hub export an admin started, webhook payloads to the owner's receivers). */
export const FULL_VIEW: RecordViewer = { userId: "", responses: "all", metadata: "all" };

/** Whether a metadata property (its stored `allowed_roles`) is visible for annotators. */
export const visibleForAnnotators = (allowedRoles: readonly string[]): boolean => allowedRoles.includes("annotator");

/** May this viewer see (read, filter, sort by, get metrics of) the metadata property? */
export const canSeeMetadataProperty = (viewer: RecordViewer, allowedRoles: readonly string[]): boolean =>
  viewer.metadata === "all" || visibleForAnnotators(allowedRoles);

/** The record's metadata as the viewer may see it. */
export function visibleMetadata(
  schema: DatasetSchema,
  viewer: RecordViewer,
  metadata: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (metadata === null || viewer.metadata === "all") return metadata;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    const property = schema.metadataByName.get(key);
    if (property && visibleForAnnotators(property.allowedRoles)) out[key] = value;
  }
  return out;
}

/** Filters and sorts by a hidden property would let the viewer read its values one query at a time: 422. */
export function requireSearchableMetadata(schema: DatasetSchema, viewer: RecordViewer, name: string): void {
  const property = schema.metadataByName.get(name);
  if (property && !canSeeMetadataProperty(viewer, property.allowedRoles)) {
    throw unprocessable(`Metadata property \`${name}\` is not visible for annotators: annotators cannot filter or sort by it`);
  }
}
