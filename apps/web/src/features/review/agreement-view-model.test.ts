import { describe, expect, it } from "vitest";
import type { AgreementReport, GetAgreementUseCase, ReviewScope } from "@tessera/domain";
import { AgreementViewModel, formatFigure } from "./agreement-view-model";

const report = (annotators: string[]): AgreementReport => ({
  datasetId: "d",
  records: 3,
  responses: 6,
  annotators: annotators.map((id) => ({ id, username: `user-${id}`, responses: 3 })),
  questions: [
    {
      name: "label",
      title: "Label",
      type: "label_selection",
      records: 3,
      responses: 6,
      primaryMetric: "alpha_nominal",
      pairMetric: "cohen_kappa",
      figures: { alpha_nominal: { value: 0.44, records: 3, responses: 6 } },
      pairs: [
        { userIds: ["b", "a"], records: 3, figures: { cohen_kappa: { value: 0.4, records: 3, responses: 6 } } },
        { userIds: ["a", "c"], records: 1, figures: { cohen_kappa: { value: null, records: 1, responses: 2 } } },
      ],
      lowest: [],
    },
  ],
  lowest: [],
  review: { reviewed: 0, needingReview: 1 },
});

function fake(reports: AgreementReport[]) {
  const scopes: ReviewScope[] = [];
  const useCase = {
    execute: async (_d: string, scope: ReviewScope) => {
      scopes.push(scope);
      return reports[Math.min(scopes.length - 1, reports.length - 1)]!;
    },
  } as unknown as GetAgreementUseCase;
  return { useCase, scopes };
}

describe("AgreementViewModel", () => {
  it("builds the pair matrix of the question, symmetric, by username", async () => {
    const { useCase } = fake([report(["a", "b", "c"])]);
    const vm = new AgreementViewModel("d", useCase);
    await vm.load();
    const matrix = vm.matrix!;
    expect(matrix.users).toEqual(["a", "b", "c"]);
    expect(matrix.cell("a", "b")).toEqual({ figure: { value: 0.4, records: 3, responses: 6 }, records: 3 });
    expect(matrix.cell("b", "a")?.records).toBe(3);
    expect(matrix.cell("b", "c")).toBeNull();
  });

  it("sends chosen annotators, the record status and the annotation page's metadata filters; keeps every annotator listed", async () => {
    const { useCase, scopes } = fake([report(["a", "b"]), report(["a"])]);
    const metadata = [{ type: "terms" as const, scope: { entity: "metadata" as const, metadata_property: "genre" }, values: ["news"] }];
    const vm = new AgreementViewModel("d", useCase, metadata);
    await vm.load();
    vm.toggleUser("a");
    vm.setStatus("completed");
    await vm.load();
    expect(scopes.at(-1)).toEqual({
      userIds: ["a"],
      filters: [...metadata, { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }],
    });
    expect(vm.annotators.map((a) => a.id)).toEqual(["a", "b"]);
    vm.dropMetadata();
    await vm.load();
    expect(scopes.at(-1)?.filters).toEqual([{ type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }]);
  });

  it("marks a failed load", async () => {
    const vm = new AgreementViewModel("d", {
      execute: async () => {
        throw new Error("403");
      },
    } as unknown as GetAgreementUseCase);
    await vm.load();
    expect(vm.failed).toBe(true);
  });
});

describe("formatFigure", () => {
  it("shows percent agreement as a percentage, other figures with two decimals, undefined as null", () => {
    expect(formatFigure("percent_agreement", 0.6667, "en")).toBe("66.7%");
    expect(formatFigure("alpha_nominal", 0.4444, "de")).toBe("0,44");
    expect(formatFigure("alpha_nominal", null, "en")).toBeNull();
  });
});
