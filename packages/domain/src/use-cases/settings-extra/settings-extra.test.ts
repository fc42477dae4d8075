import { describe, expect, it } from "vitest";
import { HasDatasetResponsesUseCase } from "./has-dataset-responses.js";

describe("HasDatasetResponsesUseCase", () => {
  it("is true with at least one response, false with none or on failure", async () => {
    expect(await new HasDatasetResponsesUseCase({ countResponses: async () => 2 }).execute("d")).toBe(true);
    expect(await new HasDatasetResponsesUseCase({ countResponses: async () => 0 }).execute("d")).toBe(false);
    expect(
      await new HasDatasetResponsesUseCase({
        countResponses: async () => {
          throw new Error("500");
        },
      }).execute("d"),
    ).toBe(false);
  });
});
