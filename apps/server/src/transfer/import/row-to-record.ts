import type { DatasetSchema } from "../../records/dataset-schema.js";
import type { RecordItem, SuggestionCreate } from "../../records/input.js";
import { cellValue } from "./infer.js";
import type { UploadFormat } from "./readers.js";
import type { UploadMapping } from "./upload-store.js";

/** A cell that does not fit its mapping. */
export class RowError extends Error {
  constructor(
    readonly row: number,
    readonly column: string | null,
    detail: string,
  ) {
    super(`Row ${row}${column !== null ? `, column \`${column}\`` : ""}: ${detail}`);
  }
}

const asText = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);

/** Resolves usernames of response columns to user ids (null: no such user, or one the import may not answer for: records/response-attribution.ts). */
export type UserIds = (username: string) => string | null;

/**
 * One file row as a record item by the mapping (docs/api.md "Record uploads"): fields, metadata,
 * suggestions (with `<column>.score` / `<column>.agent` when the file has them), responses (a column
 * of answers with `<column>.users` and `<column>.status`, as the exports write them; a single answer
 * without them is the uploader's submitted response), vectors and the external id.
 */
export function rowToRecord(
  schema: DatasetSchema,
  format: UploadFormat,
  mapping: UploadMapping,
  row: number,
  values: Record<string, unknown>,
  users: UserIds,
  uploaderId: string,
): RecordItem {
  const cell = (column: string) => cellValue(format, values[column]);
  const fail = (column: string, detail: string): never => {
    throw new RowError(row, column, detail);
  };
  const number = (column: string, value: unknown, integer: boolean): number => {
    const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)))
      fail(column, `\`${asText(value)}\` is not ${integer ? "an integer" : "a number"}`);
    return n;
  };

  const fields: Record<string, unknown> = {};
  for (const { source, target } of mapping.fields) {
    const field = schema.fieldByName.get(target) ?? fail(source, `the dataset has no field \`${target}\``);
    const value = cell(source);
    if (value === null) continue;
    if (field.settings.type === "text" || field.settings.type === "image") fields[target] = asText(value);
    else if (field.settings.type === "chat" && typeof value === "string") fields[target] = [{ role: "user", content: value }];
    else fields[target] = value;
  }
  const metadata: Record<string, unknown> = {};
  for (const { source, target } of mapping.metadata) {
    const property = schema.metadataByName.get(target) ?? fail(source, `the dataset has no metadata property \`${target}\``);
    const value = cell(source);
    if (value === null) continue;
    const type = property.settings.type;
    metadata[target] =
      type === "terms" ? (Array.isArray(value) ? value.map(asText) : asText(value)) : number(source, value, type === "integer");
  }
  const suggestions: SuggestionCreate[] = [];
  for (const { source, target } of mapping.suggestions) {
    const question = schema.questionByName.get(target) ?? fail(source, `the dataset has no question \`${target}\``);
    const value = answerValue(question.settings.type, cell(source), (detail) => fail(source, detail));
    if (value === null) continue;
    const score = cell(`${source}.score`);
    const agent = cell(`${source}.agent`);
    suggestions.push({
      question_name: question.name,
      value,
      ...(score !== null
        ? { score: Array.isArray(score) ? score.map((s) => number(`${source}.score`, s, false)) : number(`${source}.score`, score, false) }
        : {}),
      ...(agent !== null ? { agent: asText(agent) } : {}),
    });
  }
  const responses = new Map<string, { status: "submitted" | "draft" | "discarded"; values: Record<string, { value: unknown }> }>();
  for (const { source, target } of mapping.responses) {
    const question = schema.questionByName.get(target) ?? fail(source, `the dataset has no question \`${target}\``);
    const answers = cell(source);
    if (answers === null) continue;
    const usersColumn = `${source}.users`;
    const listed = cell(usersColumn);
    const pairs: Array<{ userId: string; value: unknown; status: unknown }> = [];
    if (listed === null) {
      pairs.push({ userId: uploaderId, value: answers, status: "submitted" });
    } else {
      if (!Array.isArray(answers) || !Array.isArray(listed) || answers.length !== listed.length)
        fail(source, `the answers and \`${usersColumn}\` must be lists of the same length`);
      const statuses = cell(`${source}.status`);
      (answers as unknown[]).forEach((value, i) => {
        const username = asText((listed as unknown[])[i]);
        const userId =
          users(username) ??
          fail(
            usersColumn,
            `there is no user \`${username}\` whose answers this import may add (an admin's import takes the members of the dataset's workspace)`,
          );
        pairs.push({ userId, value, status: Array.isArray(statuses) ? statuses[i] : "submitted" });
      });
    }
    for (const { userId, value, status } of pairs) {
      const converted = answerValue(question.settings.type, value, (detail) => fail(source, detail));
      if (converted === null) continue;
      const s = status === "draft" || status === "discarded" ? status : "submitted";
      const response = responses.get(userId) ?? { status: s, values: {} };
      response.values[question.name] = { value: converted };
      responses.set(userId, response);
    }
  }
  const vectors: Record<string, number[]> = {};
  for (const { source, target } of mapping.vectors) {
    if (!schema.vectorByName.has(target)) fail(source, `the dataset has no vector \`${target}\``);
    const value = cell(source);
    if (value === null) continue;
    if (!Array.isArray(value)) fail(source, "a vector must be a list of numbers");
    vectors[target] = (value as unknown[]).map((v) => number(source, v, false));
  }
  const externalId = mapping.external_id ? cell(mapping.external_id) : null;
  return {
    ...(externalId !== null ? { external_id: asText(externalId) } : {}),
    fields,
    metadata,
    suggestions,
    vectors,
    responses: [...responses.entries()].map(([user_id, r]) => ({ user_id, status: r.status, values: r.values })),
  };
}

/** A cell as the answer of a question type (lists from JSON text in CSV cells); null: no answer. */
function answerValue(type: string, value: unknown, fail: (detail: string) => never): unknown {
  if (value === null || value === undefined || value === "") return null;
  switch (type) {
    case "text":
    case "label_selection":
      return asText(value);
    case "rating": {
      const n = typeof value === "number" ? value : Number(value);
      return Number.isInteger(n) ? n : fail(`\`${asText(value)}\` is not a rating`);
    }
    case "multi_label_selection":
      return (Array.isArray(value) ? value : [value]).map(asText);
    default:
      if (typeof value === "string") {
        try {
          return JSON.parse(value) as unknown;
        } catch {
          return fail(`\`${value}\` is not a ${type} answer (JSON)`);
        }
      }
      return value;
  }
}
