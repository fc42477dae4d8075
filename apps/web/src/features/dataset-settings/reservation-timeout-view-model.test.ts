import { describe, expect, it } from "vitest";
import { ReservationTimeoutViewModel, minutesText } from "./reservation-timeout-view-model";

function setUp(ttlSeconds = 300, save: (seconds: number) => Promise<number> = async (s) => s) {
  const sent: number[] = [];
  const vm = new ReservationTimeoutViewModel("d", {
    load: { execute: async () => ({ ttlSeconds }) },
    save: {
      execute: async (_id, seconds) => {
        sent.push(seconds);
        return save(seconds);
      },
    },
  });
  return { vm, sent };
}

describe("the reservation time-out card", () => {
  it("shows the dataset's time-out in minutes and saves a new one in seconds", async () => {
    const { vm, sent } = setUp();
    await vm.load();
    expect(vm.draft).toBe("5");
    expect(vm.canSave).toBe(false);
    vm.setDraft("12,5");
    expect(vm.seconds).toBe(750);
    expect(vm.canSave).toBe(true);
    await vm.save();
    expect(sent).toEqual([750]);
    expect(vm.savedSeconds).toBe(750);
    expect(vm.outcome).toBe("saved");
    expect(vm.modified).toBe(false);
  });

  it("refuses what the domain's rule refuses before sending anything", async () => {
    const { vm, sent } = setUp();
    await vm.load();
    for (const [text, problem] of [
      ["", "notANumber"],
      ["abc", "notANumber"],
      ["-3", "notANumber"],
      ["0", "tooShort"],
      ["1441", "tooLong"],
    ] as const) {
      vm.setDraft(text);
      expect(vm.problem).toBe(problem);
      expect(vm.canSave).toBe(false);
      await vm.save();
    }
    expect(sent).toEqual([]);
    vm.setDraft("1440");
    expect(vm.problem).toBeNull();
  });

  it("keeps the time-out in force when saving fails, and Cancel restores it", async () => {
    const { vm } = setUp(90, async () => {
      throw new Error("offline");
    });
    await vm.load();
    expect(vm.draft).toBe(minutesText(90));
    expect(vm.draft).toBe("1.5");
    vm.setDraft("10");
    await vm.save();
    expect(vm.outcome).toBe("failed");
    expect(vm.savedSeconds).toBe(90);
    vm.cancel();
    expect(vm.draft).toBe("1.5");
  });
});
