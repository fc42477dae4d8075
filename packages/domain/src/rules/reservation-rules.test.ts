import { describe, expect, it } from "vitest";
import { reservationTimeoutProblem, RESERVATION_TIMEOUT_MAX_SECONDS } from "./reservation-rules.js";
import { SetReservationTimeoutUseCase } from "../use-cases/reservations/set-reservation-timeout.js";
import type { ReservationRepository } from "../use-cases/reservations/ports.js";

describe("the reservation time-out rule", () => {
  it("accepts whole seconds from 1 to a day", () => {
    expect([1, 300, RESERVATION_TIMEOUT_MAX_SECONDS].map(reservationTimeoutProblem)).toEqual([null, null, null]);
    expect(reservationTimeoutProblem(0)).toBe("tooShort");
    expect(reservationTimeoutProblem(-5)).toBe("tooShort");
    expect(reservationTimeoutProblem(RESERVATION_TIMEOUT_MAX_SECONDS + 1)).toBe("tooLong");
    expect(reservationTimeoutProblem(1.5)).toBe("notWhole");
    expect(reservationTimeoutProblem(Number.NaN)).toBe("notWhole");
  });

  it("is applied before the server is asked", async () => {
    const asked: number[] = [];
    const repository = {
      setTimeout: async (_d: string, s: number) => {
        asked.push(s);
        return s;
      },
    } as unknown as ReservationRepository;
    const useCase = new SetReservationTimeoutUseCase(repository);
    await expect(useCase.execute("d", 0)).rejects.toThrow("tooShort");
    await expect(useCase.execute("d", 600)).resolves.toBe(600);
    expect(asked).toEqual([600]);
  });
});
