import type { TokenStore } from "../ports/auth-repository.js";
import type { ReservationRepository } from "./reservations/ports.js";

/** Signs out: gives the user's reserved records back to their teams (sent with the token still held), then forgets the token. */
export class SignOutUseCase {
  constructor(
    private readonly tokens: TokenStore,
    private readonly reservations?: Pick<ReservationRepository, "releaseAll">,
  ) {}
  execute(): void {
    if (this.reservations && this.tokens.get()) void this.reservations.releaseAll().catch(() => undefined);
    this.tokens.clear();
  }
}
