import { makeObservable, observable, observableRef, runInAction } from "mobx";
import type { GetEnvironmentUseCase, HostedSpace } from "@tessera/domain";
import type { OAuthProvidersViewModel } from "./oauth-providers-view-model";

export const HF_PROVIDER = "huggingface";

/** The welcome page of the hosted space: the space's name and owner, and whether HF sign-in is offered. */
export class WelcomeViewModel {
  space: HostedSpace | null = null;
  loaded = false;

  constructor(
    private readonly environment: GetEnvironmentUseCase,
    readonly providers: OAuthProvidersViewModel,
  ) {
    makeObservable(this, { space: observableRef, loaded: observable });
  }

  /** Loads both; false when the hub provider is not configured (the page then falls back to the normal sign-in). */
  async load(): Promise<boolean> {
    const [env, providers] = await Promise.all([this.environment.execute(), this.providers.load()]);
    runInAction(() => {
      this.space = env.hostedSpace;
      this.loaded = true;
    });
    return providers.some((p) => p.name === HF_PROVIDER);
  }

  get spaceName(): string {
    return this.space?.repoName || this.space?.title || this.space?.id || "";
  }
  get owner(): string {
    return this.space?.authorName ?? "";
  }
}
