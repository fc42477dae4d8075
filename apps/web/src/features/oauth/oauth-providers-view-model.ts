import { action, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { LoadOAuthProvidersUseCase, OAuthProvider, StartOAuthSignInUseCase } from "@tessera/domain";
import type { BrowserNavigator } from "./browser-navigator";

/** The OAuth providers offered on a sign-in page, and starting a sign-in with one of them. */
export class OAuthProvidersViewModel {
  providers: OAuthProvider[] = [];
  loaded = false;

  constructor(
    private readonly loadProviders: LoadOAuthProvidersUseCase,
    private readonly startSignIn: StartOAuthSignInUseCase,
    private readonly navigator: BrowserNavigator,
  ) {
    makeObservable(this, { providers: observableRef, loaded: observable, load: action });
  }

  async load(): Promise<OAuthProvider[]> {
    const providers = await this.loadProviders.execute();
    runInAction(() => {
      this.providers = providers;
      this.loaded = true;
    });
    return providers;
  }

  has(name: string): boolean {
    return this.providers.some((p) => p.name === name);
  }

  /** Goes to the provider with the current query (e.g. the remembered redirect); a new window when embedded. */
  signInWith(provider: string, search: string): void {
    const query = Object.fromEntries(new URLSearchParams(search));
    delete query.omitCTA;
    const url = this.startSignIn.execute(provider, query);
    if (this.navigator.isEmbedded()) this.navigator.openNewWindow(url);
    else this.navigator.assign(url);
  }
}
