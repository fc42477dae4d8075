import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, Fixtures, UNAUTHORIZED, uniqueName, type Headers, type Json } from "../testing/fixtures.js";
import { routeTable } from "./index.js";
import { tableChecksums } from "./checksum.js";
import { indexRecordTexts } from "../records/ingest.js";

/**
 * The authorization matrix (contract 1.4): every route the server registers x every kind of caller,
 * with resources in workspace A. "Own" callers are members of A; "other" callers hold API keys of
 * users of workspace B. A route nobody wrote an expectation for fails the first test: add it to CASES.
 */

const ACTORS = ["owner", "adminA", "annotatorA", "annotatorA2", "adminB", "annotatorB", "anonymous", "wrongKey"] as const;
type ActorName = (typeof ACTORS)[number];

/** Who is allowed (contract 1.4); everyone else gets 403 (401 when anonymous). */
type Policy =
  | "public" // anyone, also without credentials
  | "authenticated" // any signed-in user
  | "owner"
  | "member" // owner, or member of workspace A (any role)
  | "adminMember" // owner, or admin member of workspace A
  | "selfOrOwner" // the target user (annotatorA) or the owner
  | "responseAuthor" // the response's author (annotatorA), admin members of A, the owner
  | "anyAdmin" // owner or any admin (jobs, contract 1.4)
  | "perItemMember"; // 200 for everyone signed in; each item is refused unless the caller is a member of A

const ALLOWED: Record<Exclude<Policy, "public" | "authenticated" | "perItemMember">, ActorName[]> = {
  owner: ["owner"],
  member: ["owner", "adminA", "annotatorA", "annotatorA2"],
  adminMember: ["owner", "adminA"],
  selfOrOwner: ["owner", "annotatorA"],
  responseAuthor: ["owner", "adminA", "annotatorA"],
  anyAdmin: ["owner", "adminA", "adminB"],
};

/** Files of the built web app (one GET route each when it is served): public, like any static file. */
const STATIC_FILE = /^\/(?!api\/)(?:assets\/)?[\w.-]+\.(?:html|js|css|svg|png|ico|woff2?|txt|json|webmanifest|map)$/;
const STATIC_CASE: Case = { policy: "public", ok: [200], req: () => ({ path: "" }) };

function caseFor(route: { method: string; url: string }): Case | undefined {
  const c = CASES[`${route.method} ${route.url}`];
  if (c) return c;
  if (route.method === "GET" && STATIC_FILE.test(route.url)) return { ...STATIC_CASE, req: () => ({ path: route.url }) };
  return undefined;
}

function allowed(policy: Policy, actor: ActorName): boolean {
  if (policy === "public") return true;
  if (actor === "anonymous" || actor === "wrongKey") return false;
  if (policy === "authenticated" || policy === "perItemMember") return true;
  return ALLOWED[policy].includes(actor);
}

interface Ids {
  workspace: string;
  otherWorkspace: string;
  dataset: string;
  draft: string;
  field: string;
  question: string;
  questionName: string;
  metadata: string;
  vector: string;
  record: string;
  response: string;
  suggestion: string;
  user: string;
  member: string;
  job: string;
  /** A disabled webhook (no deliveries run while the matrix changes things). */
  webhook: string;
  /** A file uploaded by the owner (uploads belong to their uploader). */
  upload: string;
  /** The hidden metadata property (visible_for_annotators false) and the responses of annotatorA2 and adminA on `record`. */
  hiddenMetadata: string;
  responseA2: string;
  responseAdminA: string;
}

/** The value of the seeded record's hidden metadata property: no annotator may ever receive it. */
const HIDDEN_VALUE = "hidden-value-7c1e";
/**
 * The text answers (question `note`) of annotatorA, annotatorA2 and adminA on the seeded record, and of
 * its final answer: answers carry no response id in exports and review pages, so the bodies are also
 * searched for the values themselves.
 */
const NOTES = { annotatorA: "note-by-annotator-a-3f9d", annotatorA2: "note-by-annotator-a2-81c4", adminA: "note-by-admin-a-5b27" };
const FINAL_NOTE = "final-note-by-reviewer-d0e6";

/**
 * What an actor must never find in a body (issues 21 and 28): the hidden metadata value, and for each
 * annotator the other members' responses (ids and answer texts) and the final answer. Owners and admins of A see everything.
 */
function secretsFor(actor: ActorName, ids: Ids): string[] {
  const all = [ids.response, ids.responseA2, ids.responseAdminA, NOTES.annotatorA, NOTES.annotatorA2, NOTES.adminA, FINAL_NOTE];
  const own: Partial<Record<ActorName, string[]>> = {
    annotatorA: [ids.response, NOTES.annotatorA],
    annotatorA2: [ids.responseA2, NOTES.annotatorA2],
  };
  if (actor === "owner" || actor === "adminA") return [];
  return [HIDDEN_VALUE, ...all.filter((secret) => !(own[actor] ?? []).includes(secret))];
}
interface Req {
  path: string;
  body?: unknown;
  form?: Record<string, string>;
}
interface Case {
  policy: Policy;
  /** Statuses an allowed caller may get (the first is the usual one). */
  ok: number[];
  req(ids: Ids, actor: ActorName): Req;
  /** Fresh resources for allowed callers of a route that changes or deletes them. */
  fresh?(world: World, actor: ActorName): Promise<Partial<Ids>>;
}

interface World {
  fx: Fixtures;
  ids: Ids;
  headers: Record<ActorName, Headers>;
  server: TestServer;
  fieldName: string;
}

/** An upload of one JSON Lines row by the calling actor. */
async function uploadAs(server: TestServer, headers: Headers): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/uploads?filename=rows.jsonl`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/octet-stream" },
    body: '{"text":"an uploaded row"}\n',
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}
const freshUpload = async (w: World, actor: ActorName): Promise<Partial<Ids>> => ({ upload: await uploadAs(w.server, w.headers[actor]) });

const labelValues = (ids: Ids, value = "yes") => ({ [ids.questionName]: { value } });

const CASES: Record<string, Case> = {
  "POST /api/v1/token": {
    policy: "public",
    ok: [200],
    req: () => ({ path: "/api/v1/token", form: { username: "owner", password: "owner-password-1" } }),
  },
  "GET /api/v1/me": { policy: "authenticated", ok: [200], req: () => ({ path: "/api/v1/me" }) },
  "GET /api/v1/settings": { policy: "public", ok: [200], req: () => ({ path: "/api/v1/settings" }) },
  "GET /api/v1/status": { policy: "public", ok: [200], req: () => ({ path: "/api/v1/status" }) },
  "GET /api/v1/version": { policy: "public", ok: [200], req: () => ({ path: "/api/v1/version" }) },
  "GET /api/v1/hub/settings": { policy: "public", ok: [200], req: () => ({ path: "/api/v1/hub/settings" }) },
  "GET /frames/custom-field.html": { policy: "public", ok: [200], req: () => ({ path: "/frames/custom-field.html" }) },
  "GET /api/v1/oauth2/providers": { policy: "public", ok: [200], req: () => ({ path: "/api/v1/oauth2/providers" }) },
  // No provider is configured here: the provider routes answer 404 to everyone (docs/oauth.md covers them with a provider).
  "GET /api/v1/oauth2/providers/:provider/authentication": {
    policy: "public",
    ok: [404],
    req: () => ({ path: "/api/v1/oauth2/providers/huggingface/authentication" }),
  },
  "GET /api/v1/oauth2/providers/:provider/access-token": {
    policy: "public",
    ok: [404],
    req: () => ({ path: "/api/v1/oauth2/providers/huggingface/access-token?code=x&state=y" }),
  },
  "GET /api/v1/me/workspaces": { policy: "authenticated", ok: [200], req: () => ({ path: "/api/v1/me/workspaces" }) },
  "GET /api/v1/me/datasets": { policy: "authenticated", ok: [200], req: () => ({ path: "/api/v1/me/datasets" }) },

  // Users (owner only, plus API key regeneration by the user themself).
  "GET /api/v1/users": { policy: "owner", ok: [200], req: () => ({ path: "/api/v1/users" }) },
  "POST /api/v1/users": {
    policy: "owner",
    ok: [201],
    req: () => ({
      path: "/api/v1/users",
      body: { username: uniqueName("u"), first_name: "U", password: "password-1234", role: "annotator" },
    }),
  },
  "GET /api/v1/users/:user_id": { policy: "owner", ok: [200], req: (ids) => ({ path: `/api/v1/users/${ids.user}` }) },
  "PATCH /api/v1/users/:user_id": {
    policy: "owner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/users/${ids.user}`, body: { first_name: "Changed", role: "admin" } }),
    fresh: freshUser,
  },
  "PUT /api/v1/users/:user_id": {
    policy: "owner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/users/${ids.user}`, body: { first_name: "Changed", role: "admin" } }),
    fresh: freshUser,
  },
  "DELETE /api/v1/users/:user_id": { policy: "owner", ok: [200], req: (ids) => ({ path: `/api/v1/users/${ids.user}` }), fresh: freshUser },
  "GET /api/v1/users/:user_id/workspaces": { policy: "owner", ok: [200], req: (ids) => ({ path: `/api/v1/users/${ids.user}/workspaces` }) },
  "POST /api/v1/users/:user_id/api-key": {
    policy: "selfOrOwner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/users/${ids.user}/api-key` }),
    // The target is annotatorA; the world swaps in the new key after each allowed call.
  },

  // Workspaces.
  "POST /api/v1/workspaces": { policy: "owner", ok: [201], req: () => ({ path: "/api/v1/workspaces", body: { name: uniqueName("ws") } }) },
  "GET /api/v1/workspaces/:workspace_id": { policy: "member", ok: [200], req: (ids) => ({ path: `/api/v1/workspaces/${ids.workspace}` }) },
  "DELETE /api/v1/workspaces/:workspace_id": {
    policy: "owner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/workspaces/${ids.workspace}` }),
    fresh: async (w) => ({ workspace: (await w.fx.workspace()).id }),
  },
  "GET /api/v1/workspaces/:workspace_id/users": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/workspaces/${ids.workspace}/users` }),
  },
  "POST /api/v1/workspaces/:workspace_id/users": {
    policy: "owner",
    ok: [201, 200],
    req: (ids) => ({ path: `/api/v1/workspaces/${ids.workspace}/users`, body: { user_id: ids.user } }),
    fresh: freshUser,
  },
  "DELETE /api/v1/workspaces/:workspace_id/users/:user_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/workspaces/${ids.workspace}/users/${ids.member}` }),
    fresh: async (w) => ({ member: (await w.fx.member(w.ids.workspace, "annotator")).id }),
  },

  // Datasets and their settings.
  "POST /api/v1/datasets": {
    policy: "adminMember",
    ok: [201],
    req: (ids) => ({ path: "/api/v1/datasets", body: { name: uniqueName("ds"), workspace_id: ids.workspace } }),
  },
  "GET /api/v1/datasets/:dataset_id": { policy: "member", ok: [200], req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}` }) },
  "PATCH /api/v1/datasets/:dataset_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}`, body: { guidelines: "Changed guidelines" } }),
    fresh: freshDraft("dataset"),
  },
  "DELETE /api/v1/datasets/:dataset_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}` }),
    fresh: freshDraft("dataset"),
  },
  "PUT /api/v1/datasets/:dataset_id/publish": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.draft}/publish` }),
    fresh: freshDraft("draft"),
  },
  "GET /api/v1/datasets/:dataset_id/fields": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/fields` }),
  },
  "GET /api/v1/datasets/:dataset_id/questions": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/questions` }),
  },
  "GET /api/v1/datasets/:dataset_id/vectors-settings": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/vectors-settings` }),
  },
  "GET /api/v1/me/datasets/:dataset_id/metadata-properties": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/me/datasets/${ids.dataset}/metadata-properties` }),
  },
  "POST /api/v1/datasets/:dataset_id/fields": {
    policy: "adminMember",
    ok: [201],
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.draft}/fields`,
      body: { name: uniqueName("f"), title: "F", settings: { type: "text" } },
    }),
    fresh: freshDraft("draft"),
  },
  "POST /api/v1/datasets/:dataset_id/questions": {
    policy: "adminMember",
    ok: [201],
    fresh: freshDraft("draft"),
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.draft}/questions`,
      body: { name: uniqueName("q"), title: "Q", settings: { type: "text" } },
    }),
  },
  "POST /api/v1/datasets/:dataset_id/metadata-properties": {
    policy: "adminMember",
    ok: [201],
    fresh: freshDraft("draft"),
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.draft}/metadata-properties`,
      body: { name: uniqueName("m"), title: "M", settings: { type: "terms", values: null } },
    }),
  },
  "POST /api/v1/datasets/:dataset_id/vectors-settings": {
    policy: "adminMember",
    ok: [201],
    fresh: freshDraft("draft"),
    req: (ids) => ({ path: `/api/v1/datasets/${ids.draft}/vectors-settings`, body: { name: uniqueName("v"), title: "V", dimensions: 2 } }),
  },
  "PATCH /api/v1/fields/:field_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/fields/${ids.field}`, body: { title: "Changed" } }),
    fresh: freshSettings,
  },
  "DELETE /api/v1/fields/:field_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/fields/${ids.field}` }),
    fresh: freshSettings,
  },
  "PATCH /api/v1/questions/:question_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/questions/${ids.question}`, body: { title: "Changed" } }),
    fresh: freshSettings,
  },
  "DELETE /api/v1/questions/:question_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/questions/${ids.question}` }),
    fresh: freshSettings,
  },
  "GET /api/v1/metadata-properties/:metadata_property_id": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/metadata-properties/${ids.metadata}` }),
  },
  "GET /api/v1/metadata-properties/:metadata_property_id/metrics": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/metadata-properties/${ids.metadata}/metrics` }),
  },
  "PATCH /api/v1/metadata-properties/:metadata_property_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/metadata-properties/${ids.metadata}`, body: { title: "Changed" } }),
    fresh: freshSettings,
  },
  "DELETE /api/v1/metadata-properties/:metadata_property_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/metadata-properties/${ids.metadata}` }),
    fresh: freshSettings,
  },
  "PATCH /api/v1/vectors-settings/:vector_settings_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/vectors-settings/${ids.vector}`, body: { title: "Changed" } }),
    fresh: freshSettings,
  },
  "DELETE /api/v1/vectors-settings/:vector_settings_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/vectors-settings/${ids.vector}` }),
    fresh: freshSettings,
  },

  // Jobs and Hub import (the draft dataset makes an allowed import stop at 422 before any Hub call).
  "GET /api/v1/jobs/:jobId": { policy: "anyAdmin", ok: [200], req: (ids) => ({ path: `/api/v1/jobs/${ids.job}` }) },

  // Record exports (members; annotators get their own responses) and uploads (owners and admins; an upload is its uploader's).
  "GET /api/v1/datasets/:dataset_id/records/export": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records/export?format=jsonl` }),
  },
  "POST /api/v1/datasets/:dataset_id/records/export": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records/export?format=csv`, body: {} }),
  },
  "POST /api/v1/uploads": {
    policy: "anyAdmin",
    ok: [201],
    req: () => ({ path: "/api/v1/uploads?filename=rows.jsonl", body: { text: "an uploaded row" } }),
  },
  "GET /api/v1/uploads/:upload_id": {
    policy: "anyAdmin",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/uploads/${ids.upload}` }),
    fresh: freshUpload,
  },
  "GET /api/v1/uploads/:upload_id/failures": {
    policy: "anyAdmin",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/uploads/${ids.upload}/failures` }),
    fresh: freshUpload,
  },
  "POST /api/v1/uploads/:upload_id/cancel": {
    policy: "anyAdmin",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/uploads/${ids.upload}/cancel` }),
    fresh: freshUpload,
  },
  "POST /api/v1/uploads/:upload_id/import": {
    policy: "adminMember",
    ok: [202],
    req: (ids) => ({
      path: `/api/v1/uploads/${ids.upload}/import`,
      body: { dataset_id: ids.dataset, mapping: { fields: [{ source: "text", target: "text" }] } },
    }),
    fresh: freshUpload,
  },
  "POST /api/v1/datasets/:datasetId/import": {
    policy: "adminMember",
    ok: [422],
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.draft}/import`,
      body: {
        name: "owner/name",
        subset: "default",
        split: "train",
        mapping: { fields: [], metadata: [], suggestions: [], external_id: null },
      },
    }),
  },

  // Records.
  "POST /api/v1/datasets/:dataset_id/records/bulk": {
    policy: "adminMember",
    ok: [201],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records/bulk`, body: { items: [{ fields: { text: "new record" } }] } }),
  },
  "PUT /api/v1/datasets/:dataset_id/records/bulk": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.dataset}/records/bulk`,
      body: { items: [{ id: ids.record, fields: { text: "changed record" } }] },
    }),
    fresh: freshRecord,
  },
  "GET /api/v1/datasets/:dataset_id/records": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records?include=responses&include=suggestions` }),
  },
  "DELETE /api/v1/datasets/:dataset_id/records": {
    policy: "adminMember",
    ok: [204],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records?ids=${ids.record}` }),
    fresh: freshRecord,
  },
  "POST /api/v1/datasets/:dataset_id/records/search": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records/search?include=responses`, body: {} }),
  },
  "POST /api/v1/me/datasets/:dataset_id/records/search": {
    policy: "member",
    ok: [200],
    req: (ids) => ({
      path: `/api/v1/me/datasets/${ids.dataset}/records/search?include=responses`,
      body: { query: { text: { q: "record" } } },
    }),
  },
  "GET /api/v1/datasets/:dataset_id/records/search/suggestions/options": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records/search/suggestions/options` }),
  },
  "GET /api/v1/records/:record_id": { policy: "member", ok: [200], req: (ids) => ({ path: `/api/v1/records/${ids.record}` }) },
  "PATCH /api/v1/records/:record_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}`, body: { metadata: { genre: "changed" } } }),
    fresh: freshRecord,
  },
  "DELETE /api/v1/records/:record_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}` }),
    fresh: freshRecord,
  },

  // Responses and suggestions.
  "POST /api/v1/records/:record_id/responses": {
    policy: "member",
    ok: [201],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/responses`, body: { values: labelValues(ids), status: "submitted" } }),
    fresh: freshRecord,
  },
  "PUT /api/v1/responses/:response_id": {
    policy: "responseAuthor",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/responses/${ids.response}`, body: { values: labelValues(ids, "no"), status: "submitted" } }),
    fresh: freshResponse,
  },
  "DELETE /api/v1/responses/:response_id": {
    policy: "responseAuthor",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/responses/${ids.response}` }),
    fresh: freshResponse,
  },
  "POST /api/v1/me/responses/bulk": {
    policy: "perItemMember",
    ok: [200],
    req: (ids) => ({
      path: "/api/v1/me/responses/bulk",
      body: { items: [{ record_id: ids.record, values: labelValues(ids), status: "draft" }] },
    }),
    fresh: freshRecord,
  },
  "GET /api/v1/records/:record_id/suggestions": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/suggestions` }),
  },
  "PUT /api/v1/records/:record_id/suggestions": {
    policy: "adminMember",
    ok: [201, 200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/suggestions`, body: { question_id: ids.question, value: "no" } }),
    fresh: freshRecord,
  },
  "DELETE /api/v1/records/:record_id/suggestions": {
    policy: "adminMember",
    ok: [204],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/suggestions?ids=${ids.suggestion}` }),
    fresh: freshSuggestion,
  },
  "DELETE /api/v1/suggestions/:suggestion_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/suggestions/${ids.suggestion}` }),
    fresh: freshSuggestion,
  },

  // Progress and metrics.
  "GET /api/v1/datasets/:dataset_id/progress": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/progress` }),
  },
  "GET /api/v1/datasets/:dataset_id/users/progress": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/users/progress` }),
  },
  "GET /api/v1/me/datasets/:dataset_id/metrics": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/me/datasets/${ids.dataset}/metrics` }),
  },

  // Agreement and review (issue 22): owners and admin members only; annotators never read others' responses here.
  // Reservations of the annotation queue (issue 29): an annotator's own, members of A; the team's, admins of A.
  "POST /api/v1/me/datasets/:dataset_id/reservations/renew": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/me/datasets/${ids.dataset}/reservations/renew` }),
  },
  "DELETE /api/v1/me/datasets/:dataset_id/reservations": {
    policy: "member",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/me/datasets/${ids.dataset}/reservations` }),
  },
  "DELETE /api/v1/me/reservations": { policy: "authenticated", ok: [200], req: () => ({ path: "/api/v1/me/reservations" }) },
  "GET /api/v1/datasets/:dataset_id/reservations": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/reservations` }),
  },
  "DELETE /api/v1/datasets/:dataset_id/reservations/users/:user_id": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/reservations/users/${ids.member}` }),
  },
  "PUT /api/v1/datasets/:dataset_id/reservations/settings": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/reservations/settings`, body: { ttl_seconds: 300 } }),
  },
  "GET /api/v1/datasets/:dataset_id/agreement": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/agreement` }),
  },
  "POST /api/v1/datasets/:dataset_id/agreement": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/agreement`, body: {} }),
  },
  "POST /api/v1/datasets/:dataset_id/review/records": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/review/records`, body: { disagreements: false } }),
  },
  "GET /api/v1/datasets/:dataset_id/review/progress": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/review/progress` }),
  },
  "GET /api/v1/records/:record_id/review": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/review` }),
  },
  // On fresh records: the seeded record keeps its final answer (FINAL_NOTE) for the body checks.
  "PUT /api/v1/records/:record_id/final-answer": {
    policy: "adminMember",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/final-answer`, body: { values: labelValues(ids) } }),
    fresh: freshRecord,
  },
  "DELETE /api/v1/records/:record_id/final-answer": {
    policy: "adminMember",
    ok: [204],
    req: (ids) => ({ path: `/api/v1/records/${ids.record}/final-answer` }),
    fresh: async (w) => {
      const { record } = await freshRecord(w);
      await w.fx.ok("PUT", `/records/${record}/final-answer`, { values: labelValues(w.ids) }, 200);
      return { record };
    },
  },

  // Legacy record routes, Hub export and webhooks (contract 3.10, 3.15, 3.16).
  "POST /api/v1/datasets/:dataset_id/records": {
    policy: "adminMember",
    ok: [204],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/records`, body: { items: [{ fields: { text: "legacy record" } }] } }),
  },
  "PATCH /api/v1/datasets/:dataset_id/records": {
    policy: "adminMember",
    ok: [204],
    req: (ids) => ({
      path: `/api/v1/datasets/${ids.dataset}/records`,
      body: { items: [{ id: ids.record, metadata: { genre: "legacy" } }] },
    }),
    fresh: freshRecord,
  },
  "POST /api/v1/datasets/:dataset_id/export": {
    policy: "adminMember",
    ok: [202],
    req: (ids) => ({ path: `/api/v1/datasets/${ids.dataset}/export`, body: { name: "owner/exported", token: "hf_token" } }),
  },
  "GET /api/v1/webhooks": { policy: "owner", ok: [200], req: () => ({ path: "/api/v1/webhooks" }) },
  "POST /api/v1/webhooks": {
    policy: "owner",
    ok: [201],
    req: () => ({ path: "/api/v1/webhooks", body: { url: UNREACHABLE_RECEIVER, events: ["dataset.created"] } }),
  },
  "PATCH /api/v1/webhooks/:webhook_id": {
    policy: "owner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/webhooks/${ids.webhook}`, body: { description: "Changed" } }),
    fresh: freshWebhook,
  },
  "DELETE /api/v1/webhooks/:webhook_id": {
    policy: "owner",
    ok: [200],
    req: (ids) => ({ path: `/api/v1/webhooks/${ids.webhook}` }),
    fresh: freshWebhook,
  },
  // Nothing listens at the URL: the ping answers 502 (receiver unreachable) to the owner.
  "POST /api/v1/webhooks/:webhook_id/ping": {
    policy: "owner",
    ok: [502, 204],
    req: (ids) => ({ path: `/api/v1/webhooks/${ids.webhook}/ping` }),
  },
};

/** The discard port on loopback: connections are refused at once. */
const UNREACHABLE_RECEIVER = "http://127.0.0.1:9/hooks";

/** A disabled webhook (as the owner). */
async function freshWebhook(w: World): Promise<Partial<Ids>> {
  const webhook = await w.fx.ok<{ id: string }>("POST", "/webhooks", { url: UNREACHABLE_RECEIVER, events: ["record.created"] });
  await w.fx.ok("PATCH", `/webhooks/${webhook.id}`, { enabled: false }, 200);
  return { webhook: webhook.id };
}

async function freshUser(w: World): Promise<Partial<Ids>> {
  return { user: (await w.fx.user("annotator")).id };
}

/** A draft dataset in workspace A with a text field and a label question (publishable). */
async function draftDataset(w: World): Promise<{ id: string; field: string; question: string }> {
  const ds = await w.fx.dataset(w.ids.workspace);
  const field = await w.fx.field(ds.id, { name: "text", title: "Text", settings: { type: "text" } });
  const question = await w.fx.question(ds.id);
  return { id: ds.id, field: field.id, question: question.id };
}

function freshDraft(key: "dataset" | "draft") {
  return async (w: World): Promise<Partial<Ids>> => ({ [key]: (await draftDataset(w)).id });
}

async function freshSettings(w: World): Promise<Partial<Ids>> {
  const ds = await draftDataset(w);
  const extraField = await w.fx.field(ds.id);
  const metadata = await w.fx.metadataProperty(ds.id);
  const vector = await w.fx.vectorSettings(ds.id);
  return { draft: ds.id, field: extraField.id, question: ds.question, metadata: metadata.id, vector: vector.id };
}

async function freshRecord(w: World): Promise<Partial<Ids>> {
  const created = await w.fx.ok<{ items: { id: string }[] }>("POST", `/datasets/${w.ids.dataset}/records/bulk`, {
    items: [{ fields: { text: `fresh ${randomUUID()}` } }],
  });
  return { record: created.items[0]!.id };
}

async function freshResponse(w: World): Promise<Partial<Ids>> {
  const { record } = await freshRecord(w);
  const res = await w.fx.ok<{ id: string }>(
    "POST",
    `/records/${record}/responses`,
    { values: labelValues(w.ids), status: "submitted" },
    201,
    w.headers.annotatorA,
  );
  return { record, response: res.id };
}

async function freshSuggestion(w: World): Promise<Partial<Ids>> {
  const { record } = await freshRecord(w);
  const res = await w.fx.ok<{ id: string }>("PUT", `/records/${record}/suggestions`, { question_id: w.ids.question, value: "yes" }, 201);
  return { record, suggestion: res.id };
}

async function call(w: World, method: string, req: Req, actor: ActorName): Promise<{ status: number; body: unknown }> {
  const headers: Headers = { ...w.headers[actor] };
  let body: string | URLSearchParams | undefined;
  if (req.form) body = new URLSearchParams(req.form);
  else if (req.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(req.body);
  }
  const res = await fetch(`${w.server.url}${req.path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* HTML or text */
  }
  return { status: res.status, body: parsed };
}

let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  const fx = new Fixtures(server);
  const wsA = await fx.workspace();
  const wsB = await fx.workspace();
  const adminA = await fx.member(wsA.id, "admin");
  const annotatorA = await fx.member(wsA.id, "annotator");
  const annotatorA2 = await fx.member(wsA.id, "annotator");
  const adminB = await fx.member(wsB.id, "admin");
  const annotatorB = await fx.member(wsB.id, "annotator");
  const headers: Record<ActorName, Headers> = {
    owner: fx.owner,
    adminA: await server.login(adminA.username, adminA.password), // bearer token
    annotatorA: annotatorA.headers,
    annotatorA2: annotatorA2.headers, // API keys
    adminB: adminB.headers,
    annotatorB: annotatorB.headers,
    anonymous: {},
    wrongKey: { "x-argilla-api-key": "tsr.this-key-was-never-issued-0000000000000" },
  };
  const ds = await fx.dataset(wsA.id);
  await fx.field(ds.id, { name: "text", title: "Text", settings: { type: "text" } });
  const question = await fx.question(ds.id);
  await fx.question(ds.id, { name: "note", title: "Note", required: false, settings: { type: "text" } });
  const metadata = await fx.metadataProperty(ds.id, { name: "genre", visible_for_annotators: true });
  const hiddenMetadata = await fx.metadataProperty(ds.id, { name: "secret", visible_for_annotators: false });
  const vector = await fx.vectorSettings(ds.id);
  await fx.publish(ds.id);
  const draft = await fx.dataset(wsA.id);
  await fx.field(draft.id, { name: "text", title: "Text", settings: { type: "text" } });
  await fx.question(draft.id);
  const records = await fx.ok<{ items: { id: string }[] }>("POST", `/datasets/${ds.id}/records/bulk`, {
    items: [
      { fields: { text: "a record in A" }, metadata: { genre: "news", secret: HIDDEN_VALUE }, vectors: { [vector.name]: [1, 0, 0] } },
    ],
  });
  const record = records.items[0]!.id;
  const ids0 = { questionName: question.name };
  const response = await fx.ok<{ id: string }>(
    "POST",
    `/records/${record}/responses`,
    { values: { ...labelValues(ids0 as Ids), note: { value: NOTES.annotatorA } }, status: "submitted" },
    201,
    headers.annotatorA,
  );
  const responseA2 = await fx.ok<{ id: string }>(
    "POST",
    `/records/${record}/responses`,
    { values: { ...labelValues(ids0 as Ids, "no"), note: { value: NOTES.annotatorA2 } }, status: "submitted" },
    201,
    headers.annotatorA2,
  );
  const responseAdminA = await fx.ok<{ id: string }>(
    "POST",
    `/records/${record}/responses`,
    { values: { ...labelValues(ids0 as Ids, "no"), note: { value: NOTES.adminA } }, status: "draft" },
    201,
    headers.adminA,
  );
  await fx.ok("PUT", `/records/${record}/final-answer`, { values: { ...labelValues(ids0 as Ids), note: { value: FINAL_NOTE } } }, 200);
  const suggestion = await fx.ok<{ id: string }>("PUT", `/records/${record}/suggestions`, { question_id: question.id, value: "yes" }, 201);
  const job = randomUUID();
  const webhook = await fx.ok<{ id: string }>("POST", "/webhooks", { url: UNREACHABLE_RECEIVER, events: ["record.created"] });
  await fx.ok("PATCH", `/webhooks/${webhook.id}`, { enabled: false }, 200);
  const t = new Date().toISOString();
  await server.ctx.db
    .insertInto("jobs")
    .values({
      id: job,
      type: "hub_import",
      status: "finished",
      payload: JSON.stringify({ datasetId: ds.id }),
      result: JSON.stringify({ records: 1 }),
      error: null,
      attempts: 1,
      max_attempts: 3,
      run_after: t,
      inserted_at: t,
      started_at: t,
      finished_at: t,
      updated_at: t,
    })
    .execute();
  world = {
    fx,
    server,
    headers,
    fieldName: "text",
    ids: {
      workspace: wsA.id,
      otherWorkspace: wsB.id,
      dataset: ds.id,
      draft: draft.id,
      field: (await fx.ok<{ items: { id: string }[] }>("GET", `/datasets/${ds.id}/fields`, undefined, 200)).items[0]!.id,
      question: question.id,
      questionName: question.name,
      metadata: metadata.id,
      vector: vector.id,
      record,
      response: response.id,
      suggestion: suggestion.id,
      user: annotatorA.id,
      member: annotatorA2.id,
      job,
      webhook: webhook.id,
      upload: await uploadAs(server, fx.owner),
      hiddenMetadata: hiddenMetadata.id,
      responseA2: responseA2.id,
      responseAdminA: responseAdminA.id,
    },
  };
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

describe("authorization matrix", () => {
  it("has an expectation for every registered route (new routes must be added to CASES)", () => {
    const routes = routeTable(server.app).map(key);
    expect(routes.length).toBeGreaterThan(50);
    const missing = routeTable(server.app)
      .filter((r) => !caseFor(r))
      .map(key);
    expect(
      missing,
      `routes without an authorization expectation; add them to CASES in apps/server/src/security/authz-matrix.security.test.ts: ${missing.join(", ")}`,
    ).toEqual([]);
    const stale = Object.keys(CASES).filter((c) => !routes.includes(c));
    expect(stale, "expectations for routes that no longer exist").toEqual([]);
  });

  it("refuses every caller the contract does not allow (401 anonymous, 403 otherwise) and changes nothing", async () => {
    const sqlite = server.ctx.store.sqlite!;
    await indexRecordTexts(server.ctx.store.db); // the background text indexer has nothing left to write during the checks
    const before = tableChecksums(sqlite);
    const failures: string[] = [];
    let denials = 0;
    for (const route of routeTable(server.app)) {
      const c = caseFor(route);
      if (!c) continue;
      for (const actor of ACTORS) {
        if (allowed(c.policy, actor)) continue;
        denials++;
        const res = await call(world, route.method, c.req(world.ids, actor), actor);
        const expected =
          actor === "anonymous" || actor === "wrongKey" ? { status: 401, body: UNAUTHORIZED } : { status: 403, body: FORBIDDEN };
        if (res.status !== expected.status || JSON.stringify(res.body) !== JSON.stringify(expected.body)) {
          failures.push(
            `${key(route)} as ${actor}: expected ${expected.status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(denials).toBeGreaterThan(150);
    expect(tableChecksums(sqlite)).toEqual(before);
  }, 120_000);

  it("answers each member route 403 for the other workspace also with per-item bulk responses, and writes nothing there", async () => {
    const sqlite = server.ctx.store.sqlite!;
    await indexRecordTexts(server.ctx.store.db); // the background text indexer has nothing left to write during the checks
    const before = tableChecksums(sqlite);
    const c = CASES["POST /api/v1/me/responses/bulk"]!;
    for (const actor of ["adminB", "annotatorB"] as const) {
      const res = await call(world, "POST", c.req(world.ids, actor), actor);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [{ item: null, error: { detail: "Operation not allowed" } }] });
    }
    expect(tableChecksums(sqlite)).toEqual(before);
  });

  it("lets every allowed caller through (fresh resources for changes)", async () => {
    const failures: string[] = [];
    for (const route of routeTable(server.app)) {
      const c = caseFor(route);
      if (!c) continue;
      for (const actor of ACTORS) {
        if (!allowed(c.policy, actor) || (c.policy === "perItemMember" && !ALLOWED.member.includes(actor))) continue;
        const ids = { ...world.ids, ...(c.fresh ? await c.fresh(world, actor) : {}) };
        const res = await call(world, route.method, c.req(ids, actor), actor);
        if (!c.ok.includes(res.status))
          failures.push(
            `${key(route)} as ${actor}: expected ${c.ok.join("/")}, got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
          );
        const text = JSON.stringify(res.body);
        for (const secret of secretsFor(actor, world.ids))
          if (text.includes(secret))
            failures.push(
              `${key(route)} as ${actor}: the body carries ${secret === HIDDEN_VALUE ? "hidden metadata" : `another user's response ${secret}`}`,
            );
        if (c.policy === "perItemMember" && res.status === 200) {
          const items = (res.body as { items: { error: unknown }[] }).items;
          if (items[0]?.error !== null) failures.push(`${key(route)} as ${actor}: item refused ${JSON.stringify(items[0])}`);
        }
        if (key(route) === "POST /api/v1/users/:user_id/api-key" && res.status === 200) {
          world.headers.annotatorA = { "x-argilla-api-key": (res.body as { api_key: string }).api_key };
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);
});

describe("no leaks through lists and search", () => {
  const get = async <T>(actor: ActorName, path: string) => (await call(world, "GET", { path }, actor)).body as T;

  it("lists only the caller's workspaces and datasets", async () => {
    for (const actor of ["adminB", "annotatorB"] as const) {
      const workspaces = await get<{ items: { id: string }[] }>(actor, "/api/v1/me/workspaces");
      expect(workspaces.items.map((x) => x.id)).toEqual([world.ids.otherWorkspace]);
      const datasets = await get<{ items: { id: string; workspace_id: string }[] }>(actor, "/api/v1/me/datasets");
      expect(datasets.items.filter((d) => d.workspace_id !== world.ids.otherWorkspace)).toEqual([]);
      const filtered = await call(world, "GET", { path: `/api/v1/me/datasets?workspace_id=${world.ids.workspace}` }, actor);
      expect([403, 200]).toContain(filtered.status);
      if (filtered.status === 200) expect((filtered.body as { items: unknown[] }).items).toEqual([]);
    }
  });

  it("shows an annotator only their own response through the annotator search", async () => {
    const res = await call(
      world,
      "POST",
      { path: `/api/v1/me/datasets/${world.ids.dataset}/records/search?include=responses`, body: {} },
      "annotatorA2",
    );
    expect(res.status).toBe(200);
    const json = JSON.stringify(res.body);
    expect(json).not.toContain(world.ids.response);
  });

  /** Every path that returns the seeded record (or its metadata) to a member of A. */
  const recordPaths = (vectorName: string): { name: string; method: string; req: Req }[] => {
    const me = `/api/v1/me/datasets/${world.ids.dataset}/records/search?include=responses&include=suggestions&include=vectors`;
    return [
      { name: "single record", method: "GET", req: { path: `/api/v1/records/${world.ids.record}` } },
      { name: "annotator search", method: "POST", req: { path: me, body: {} } },
      { name: "annotator text search", method: "POST", req: { path: me, body: { query: { text: { q: "record" } } } } },
      {
        name: "annotator similarity search",
        method: "POST",
        req: { path: me, body: { query: { vector: { name: vectorName, value: [1, 0, 0] } } } },
      },
      {
        name: "annotator search with a visible filter",
        method: "POST",
        req: {
          path: me,
          body: { filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] } },
        },
      },
      {
        name: "annotator search sorted by a record property",
        method: "POST",
        req: { path: me, body: { sort: [{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }] } },
      },
      { name: "metadata properties", method: "GET", req: { path: `/api/v1/me/datasets/${world.ids.dataset}/metadata-properties` } },
      { name: "export (JSON Lines)", method: "GET", req: { path: `/api/v1/datasets/${world.ids.dataset}/records/export?format=jsonl` } },
      {
        name: "export (CSV, filtered)",
        method: "POST",
        req: {
          path: `/api/v1/datasets/${world.ids.dataset}/records/export?format=csv`,
          body: { filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] } },
        },
      },
      { name: "admin record list", method: "GET", req: { path: `/api/v1/datasets/${world.ids.dataset}/records?include=responses` } },
      {
        name: "admin search",
        method: "POST",
        req: { path: `/api/v1/datasets/${world.ids.dataset}/records/search?include=responses`, body: {} },
      },
    ];
  };

  it("gives annotators of A only their own responses and visible metadata on every record path; owner and admin of A see all", async () => {
    const vectorName = (await get<{ items: { name: string }[] }>("owner", `/api/v1/datasets/${world.ids.dataset}/vectors-settings`))
      .items[0]!.name;
    const failures: string[] = [];
    let recordsSeen = 0;
    for (const actor of ["annotatorA", "annotatorA2"] as const) {
      for (const p of recordPaths(vectorName)) {
        const res = await call(world, p.method, p.req, actor);
        if (p.name.startsWith("admin")) {
          if (res.status !== 403) failures.push(`${p.name} as ${actor}: ${res.status}`);
          continue;
        }
        if (res.status !== 200) {
          failures.push(`${p.name} as ${actor}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          continue;
        }
        const text = JSON.stringify(res.body);
        if (text.includes(world.ids.record)) recordsSeen++;
        for (const secret of secretsFor(actor, world.ids))
          if (text.includes(secret)) failures.push(`${p.name} as ${actor}: carries ${secret}`);
        if (text.includes('"secret"')) failures.push(`${p.name} as ${actor}: names the hidden property`);
      }
    }
    // The annotators did get the record (and their own response) on the record paths: the check above is not vacuous.
    expect(recordsSeen).toBeGreaterThanOrEqual(14);
    // ... and their own answer text, in the record and in the exports.
    for (const actor of ["annotatorA", "annotatorA2"] as const) {
      for (const p of recordPaths(vectorName).filter((x) => x.name === "single record" || x.name.startsWith("export"))) {
        const text = JSON.stringify((await call(world, p.method, p.req, actor)).body);
        if (!text.includes(NOTES[actor])) failures.push(`${p.name} as ${actor}: misses their own answer`);
      }
    }
    const own = await call(world, "GET", { path: `/api/v1/records/${world.ids.record}` }, "annotatorA");
    expect((own.body as { responses: { id: string }[] }).responses.map((r) => r.id)).toEqual([world.ids.response]);
    expect((own.body as { metadata: Json }).metadata).toEqual({ genre: "news" });
    for (const actor of ["owner", "adminA"] as const) {
      for (const p of recordPaths(vectorName).filter((x) => x.name === "single record" || x.name.startsWith("admin"))) {
        const text = JSON.stringify((await call(world, p.method, p.req, actor)).body);
        for (const expected of [
          HIDDEN_VALUE,
          world.ids.response,
          world.ids.responseA2,
          world.ids.responseAdminA,
          ...Object.values(NOTES),
        ]) {
          if (!text.includes(expected)) failures.push(`${p.name} as ${actor}: misses ${expected}`);
        }
      }
      // Their exports carry every answer and the reviewer's final answer too.
      for (const p of recordPaths(vectorName).filter((x) => x.name.startsWith("export"))) {
        const text = JSON.stringify((await call(world, p.method, p.req, actor)).body);
        for (const expected of [HIDDEN_VALUE, ...Object.values(NOTES), FINAL_NOTE])
          if (!text.includes(expected)) failures.push(`${p.name} as ${actor}: misses ${expected}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("refuses annotators' filters, sorts and metrics on hidden metadata (422/403) but not the admin's", async () => {
    const path = `/api/v1/me/datasets/${world.ids.dataset}/records/search`;
    const hiddenScope = { entity: "metadata", metadata_property: "secret" };
    const bodies = [
      { filters: { and: [{ type: "terms", scope: hiddenScope, values: [HIDDEN_VALUE] }] } },
      { filters: { and: [{ type: "range", scope: hiddenScope, ge: 2, le: 2 }] } },
      { sort: [{ scope: hiddenScope, order: "asc" }] },
    ];
    for (const actor of ["annotatorA", "annotatorA2"] as const) {
      for (const body of bodies) {
        const res = await call(world, "POST", { path, body }, actor);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body).toEqual({
          detail: "Metadata property `secret` is not visible for annotators: annotators cannot filter or sort by it",
        });
      }
      expect((await call(world, "GET", { path: `/api/v1/metadata-properties/${world.ids.hiddenMetadata}/metrics` }, actor)).status).toBe(
        403,
      );
      // Nor the property itself (its settings may list the values), as the reference server's policy.
      expect((await call(world, "GET", { path: `/api/v1/metadata-properties/${world.ids.hiddenMetadata}` }, actor)).status).toBe(403);
    }
    for (const actor of ["owner", "adminA"] as const) {
      const res = await call(world, "POST", { path, body: bodies[0] }, actor);
      expect(res.status).toBe(200);
      expect((res.body as { total: number }).total).toBe(1);
    }
  });

  it("lets an admin attribute bulk responses only to members of the dataset's workspace; the owner to any user", async () => {
    const annotatorB = (await get<{ id: string }>("annotatorB", "/api/v1/me")).id;
    const item = (userId: string) => ({
      items: [
        {
          fields: { text: `attributed ${randomUUID()}` },
          responses: [{ user_id: userId, values: labelValues(world.ids), status: "submitted" }],
        },
      ],
    });
    const sqlite = server.ctx.store.sqlite!;
    await indexRecordTexts(server.ctx.store.db);
    const before = tableChecksums(sqlite);
    const refused = [
      await call(world, "POST", { path: `/api/v1/datasets/${world.ids.dataset}/records/bulk`, body: item(annotatorB) }, "adminA"),
      await call(world, "PUT", { path: `/api/v1/datasets/${world.ids.dataset}/records/bulk`, body: item(annotatorB) }, "adminA"),
      await call(world, "POST", { path: `/api/v1/datasets/${world.ids.dataset}/records`, body: item(annotatorB) }, "adminA"),
    ];
    for (const res of refused) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: `Record at position 0 is not valid because user with id \`${annotatorB}\` is not a member of the dataset's workspace: admins can only add responses for its members`,
      });
    }
    expect(tableChecksums(sqlite)).toEqual(before);
    expect(
      (await call(world, "POST", { path: `/api/v1/datasets/${world.ids.dataset}/records/bulk`, body: item(world.ids.member) }, "adminA"))
        .status,
    ).toBe(201);
    const byOwner = await call(
      world,
      "POST",
      { path: `/api/v1/datasets/${world.ids.dataset}/records/bulk`, body: item(annotatorB) },
      "owner",
    );
    expect(byOwner.status).toBe(201);
    expect((byOwner.body as { items: { responses: { user_id: string }[] }[] }).items[0]!.responses[0]!.user_id).toBe(annotatorB);
  });

  it("lets an admin's file import attribute responses only to members of the dataset's workspace; the owner's to any user", async () => {
    const usernameOf = async (actor: ActorName) => (await get<{ username: string }>(actor, "/api/v1/me")).username;
    const annotatorB = await usernameOf("annotatorB");
    const q = world.ids.questionName;
    const importAs = async (actor: ActorName, username: string) => {
      const text = `imported ${randomUUID()}`;
      const row = { text, [`${q}.responses`]: ["yes"], [`${q}.responses.users`]: [username], [`${q}.responses.status`]: ["submitted"] };
      const res = await fetch(`${server.url}/api/v1/uploads?filename=rows.jsonl`, {
        method: "POST",
        headers: { ...world.headers[actor], "content-type": "application/octet-stream" },
        body: `${JSON.stringify(row)}\n`,
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const mapping = {
        fields: [{ source: "text", target: world.fieldName }],
        metadata: [],
        suggestions: [],
        responses: [{ source: `${q}.responses`, target: q }],
        vectors: [],
        external_id: null,
      };
      const started = await call(
        world,
        "POST",
        { path: `/api/v1/uploads/${id}/import`, body: { dataset_id: world.ids.dataset, mapping } },
        actor,
      );
      expect(started.status).toBe(202);
      let state: Json = {};
      for (let i = 0; i < 400 && !["finished", "failed", "cancelled"].includes(String(state.status)); i++) {
        await new Promise((r) => setTimeout(r, 25));
        state = (await call(world, "GET", { path: `/api/v1/uploads/${id}` }, actor)).body as Json;
      }
      const failures = await (await fetch(`${server.url}/api/v1/uploads/${id}/failures`, { headers: world.headers[actor] })).text();
      const found = await call(
        world,
        "POST",
        { path: `/api/v1/datasets/${world.ids.dataset}/records/search?include=responses`, body: { query: { text: { q: text } } } },
        "owner",
      );
      const responses = (found.body as { items: { record: { responses: { user_id: string }[] } }[] }).items.flatMap(
        (i) => i.record.responses,
      );
      return { state, failures, responses };
    };
    // Before the fix the import resolved every username of the server: the answer was stored in annotator B's name.
    const refused = await importAs("adminA", annotatorB);
    expect(refused.state).toMatchObject({ status: "finished", rows_stored: 0, rows_failed: 1 });
    expect(refused.failures).toContain(`there is no user \`${annotatorB}\` whose answers this import may add`);
    expect(refused.responses).toEqual([]);
    // A member of A: stored; the owner may name anyone, as with the bulk routes.
    const member = await importAs("adminA", await usernameOf("annotatorA2"));
    expect(member.state).toMatchObject({ status: "finished", rows_stored: 1, rows_failed: 0 });
    expect(member.responses.map((r) => r.user_id)).toEqual([world.ids.member]);
    const byOwner = await importAs("owner", annotatorB);
    expect(byOwner.state).toMatchObject({ status: "finished", rows_stored: 1 });
    expect(byOwner.responses).toHaveLength(1);
  });

  it("tells anonymous callers and wrong keys only the version at /status; signed-in users get the rest", async () => {
    for (const actor of ["anonymous", "wrongKey"] as const) expect(await get(actor, "/api/v1/status")).toEqual({ version: "2.8.0" });
    for (const actor of ["owner", "annotatorB"] as const)
      expect(Object.keys(await get<Json>(actor, "/api/v1/status"))).toEqual(expect.arrayContaining(["version", "search_engine", "memory"]));
  });

  it("does not return password hashes or other users' API keys anywhere", async () => {
    const users = await get<{ items: Json[] }>("owner", "/api/v1/users");
    expect(JSON.stringify(users)).not.toMatch(/password|\$argon2/);
    const members = await get<{ items: Json[] }>("adminA", `/api/v1/workspaces/${world.ids.workspace}/users`);
    expect(JSON.stringify(members)).not.toMatch(/password|\$argon2/);
    // Keys are stored as digests and shown once: no listing carries one, for admins or the owner.
    expect(members.items.filter((m) => m.api_key !== undefined)).toEqual([]);
    const owners = await get<{ items: Json[] }>("owner", `/api/v1/workspaces/${world.ids.workspace}/users`);
    expect(owners.items.filter((m) => m.api_key !== undefined)).toEqual([]);
    expect(users.items.filter((m) => m.api_key !== undefined)).toEqual([]);
  });
});
