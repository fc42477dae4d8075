import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import {
  LoadOAuthProvidersUseCase,
  SignInWithOAuthUseCase,
  StartOAuthSignInUseCase,
  TOKENS,
  type OAuthRepository,
  type TokenStore,
  type UserRepository,
} from "@tessera/domain";
import type { KyInstance } from "ky";
import { HttpOAuthRepository } from "./repositories/oauth-repository.js";
import type { HttpClientOptions } from "./http/http-client.js";

/** Part of the composition root (called by createContainer): OAuth sign-in's repository and use cases. */
export function registerOAuth(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance, options: HttpClientOptions = {}): void {
  const origin = options.origin ?? (typeof location !== "undefined" ? location.origin : "http://localhost:6900");
  const apiRoot = `${origin}/${(options.basePath ?? "api").replace(/^\/+|\/+$/g, "")}`;
  c.register(TOKENS.OAuthRepository, { useFactory: instanceCachingFactory((d) => new HttpOAuthRepository(http(d), apiRoot)) });
  const oauth = (d: DependencyContainer) => d.resolve<OAuthRepository>(TOKENS.OAuthRepository);
  c.register(LoadOAuthProvidersUseCase, { useFactory: instanceCachingFactory((d) => new LoadOAuthProvidersUseCase(oauth(d))) });
  c.register(StartOAuthSignInUseCase, { useFactory: instanceCachingFactory((d) => new StartOAuthSignInUseCase(oauth(d))) });
  c.register(SignInWithOAuthUseCase, {
    useFactory: instanceCachingFactory(
      (d) =>
        new SignInWithOAuthUseCase(oauth(d), d.resolve<TokenStore>(TOKENS.TokenStore), d.resolve<UserRepository>(TOKENS.UserRepository)),
    ),
  });
}
