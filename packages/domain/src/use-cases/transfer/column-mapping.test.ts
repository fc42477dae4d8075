import { describe, expect, it } from "vitest";
import { columnType, proposeTargets, toMapping } from "./column-mapping.js";
import type { UploadColumn } from "./ports.js";

const col = (name: string, feature: Record<string, unknown>, hint: string | null = null): UploadColumn => ({ name, feature, hint });
const text = { _type: "Value", dtype: "string" };
const json = { _type: "json" };

describe("column mapping of an upload", () => {
  it("types columns by the Hub import's rules", () => {
    expect(columnType(col("a", text))).toBe("text");
    expect(columnType(col("a", { _type: "Image" }))).toBe("image");
    expect(columnType(col("a", { _type: "Value", dtype: "int64" }))).toBe("integer");
    expect(columnType(col("a", { _type: "Sequence", feature: { _type: "ClassLabel", names: ["x"] } }))).toBe("labels");
    expect(columnType(col("a", json))).toBe("other");
  });

  it("maps a Tessera export back by its column names, and leaves the parts of responses and suggestions with their column", () => {
    const columns = [
      col("id", text, "record"),
      col("external_id", text, "external_id"),
      col("text", text),
      col("metadata.genre", json, "metadata"),
      col("label.responses", json, "responses"),
      col("label.responses.users", json, "responses_part"),
      col("label.suggestion", json, "suggestion"),
      col("label.suggestion.score", json, "suggestion_part"),
      col("vector.emb", json, "vector"),
      // a reviewer's final answer travels in the file but is not restored (docs/api.md "Record uploads")
      col("label.final", text, "final"),
      col("final_answer.reviewer", text, "final"),
    ];
    const targets = proposeTargets(columns, { fields: ["text"], questions: ["label"], metadata: ["genre"], vectors: ["emb"] });
    expect(targets.get("label.final")).toEqual({ kind: "ignore", name: null });
    expect(toMapping(targets)).toEqual({
      fields: [{ source: "text", target: "text" }],
      metadata: [{ source: "metadata.genre", target: "genre" }],
      suggestions: [{ source: "label.suggestion", target: "label" }],
      responses: [{ source: "label.responses", target: "label" }],
      vectors: [{ source: "vector.emb", target: "emb" }],
      external_id: "external_id",
    });
  });

  it("maps a plain file by name, an id column as the external id and the first text column onto the first field", () => {
    const columns = [
      col("id", { _type: "Value", dtype: "int64" }),
      col("review", text),
      col("stars", { _type: "Value", dtype: "int64" }),
      col("sentiment", text),
    ];
    const mapping = toMapping(proposeTargets(columns, { fields: ["prompt"], questions: ["sentiment"], metadata: ["stars"], vectors: [] }));
    expect(mapping).toEqual({
      fields: [{ source: "review", target: "prompt" }],
      metadata: [{ source: "stars", target: "stars" }],
      suggestions: [{ source: "sentiment", target: "sentiment" }],
      responses: [],
      vectors: [],
      external_id: "id",
    });
  });
});
