import { makeObservable, observable, runInAction } from "mobx";
import type { SignInWithOAuthUseCase, User } from "@tessera/domain";
import { localTarget } from "./browser-navigator";

export type CallbackStatus = "exchanging" | "failed";

/** The OAuth callback page: exchanges the provider's query once, then says where to go. */
export class OAuthCallbackViewModel {
  status: CallbackStatus = "exchanging";
  private started: Promise<string | null> | null = null;

  constructor(
    private readonly signIn: SignInWithOAuthUseCase,
    private readonly onSignedIn: (user: User) => void,
  ) {
    makeObservable(this, { status: observable });
  }

  /** Returns the local path to land on, or null when the exchange failed (ERROR_FETCHING_OAUTH_ACCESS_TOKEN). */
  exchange(provider: string, search: string): Promise<string | null> {
    this.started ??= (async () => {
      try {
        const { user, redirectTo } = await this.signIn.execute(provider, Object.fromEntries(new URLSearchParams(search)));
        this.onSignedIn(user);
        return localTarget(redirectTo);
      } catch {
        runInAction(() => {
          this.status = "failed";
        });
        return null;
      }
    })();
    return this.started;
  }
}
