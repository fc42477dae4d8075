import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import {
  GetRecordsInProgressUseCase,
  ReleaseReservationsUseCase,
  ReleaseUserReservationsUseCase,
  RenewReservationsUseCase,
  SetReservationTimeoutUseCase,
  RESERVATION_TOKENS,
  TOKENS,
  type ReservationRepository,
  type TokenStore,
} from "@tessera/domain";
import type { KyInstance } from "ky";
import { HttpReservationRepository } from "./repositories/reservation-repository.js";

/** Part of the composition root (called by createContainer): reservations of the annotation queue. */
export function registerReservations(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance): void {
  c.register(RESERVATION_TOKENS.ReservationRepository, {
    useFactory: instanceCachingFactory((d) => new HttpReservationRepository(http(d), d.resolve<TokenStore>(TOKENS.TokenStore))),
  });
  const repository = (d: DependencyContainer) => d.resolve<ReservationRepository>(RESERVATION_TOKENS.ReservationRepository);
  c.register(RenewReservationsUseCase, { useFactory: instanceCachingFactory((d) => new RenewReservationsUseCase(repository(d))) });
  c.register(ReleaseReservationsUseCase, { useFactory: instanceCachingFactory((d) => new ReleaseReservationsUseCase(repository(d))) });
  c.register(GetRecordsInProgressUseCase, { useFactory: instanceCachingFactory((d) => new GetRecordsInProgressUseCase(repository(d))) });
  c.register(SetReservationTimeoutUseCase, { useFactory: instanceCachingFactory((d) => new SetReservationTimeoutUseCase(repository(d))) });
  c.register(ReleaseUserReservationsUseCase, {
    useFactory: instanceCachingFactory((d) => new ReleaseUserReservationsUseCase(repository(d))),
  });
}
