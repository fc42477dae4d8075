import "reflect-metadata";
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from "tsyringe";
import type { KyInstance } from "ky";
import {
  ListDatasetsUseCase, LoadUserUseCase, SignInUseCase, SignOutUseCase, TOKENS,
  type AuthRepository, type DatasetRepository, type TokenStore, type UserRepository,
} from "@tessera/domain";
import { createHttpClient, type HttpClientOptions } from "./http/http-client.js";
import { LocalTokenStore, MemoryStorage, ProductStorage, type KeyValueStorage } from "./storage/local-storage.js";
import { HttpAuthRepository } from "./repositories/auth-repository.js";
import { HttpUserRepository } from "./repositories/user-repository.js";
import { HttpDatasetRepository } from "./repositories/dataset-repository.js";
import { registerShell } from "./shell-bindings.js";

export const INFRA_TOKENS = {
  HttpClient: Symbol.for("tessera.HttpClient"),
  ProductStorage: Symbol.for("tessera.ProductStorage"),
} as const;

export interface CompositionOptions extends HttpClientOptions {
  storage?: KeyValueStorage;
}

/**
 * The composition root: the one place where ports meet adapters and use cases get their ports.
 * Returns a child container so that tests can build as many independent apps as they like.
 */
export function createContainer(options: CompositionOptions = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const storage = options.storage ?? (typeof localStorage !== "undefined" ? localStorage : new MemoryStorage());

  c.registerInstance(INFRA_TOKENS.ProductStorage, new ProductStorage(storage));
  c.register(TOKENS.TokenStore, { useFactory: instanceCachingFactory((d) => new LocalTokenStore(d.resolve(INFRA_TOKENS.ProductStorage))) });
  const tokenStore = c.resolve<TokenStore>(TOKENS.TokenStore);
  c.registerInstance(INFRA_TOKENS.HttpClient, createHttpClient(tokenStore, options));
  c.registerInstance(TOKENS.TokenStore, tokenStore);

  const http = (d: DependencyContainer) => d.resolve<KyInstance>(INFRA_TOKENS.HttpClient);
  c.register(TOKENS.AuthRepository, { useFactory: instanceCachingFactory((d) => new HttpAuthRepository(http(d))) });
  c.register(TOKENS.UserRepository, { useFactory: instanceCachingFactory((d) => new HttpUserRepository(http(d))) });
  c.register(TOKENS.DatasetRepository, { useFactory: instanceCachingFactory((d) => new HttpDatasetRepository(http(d))) });

  c.register(SignInUseCase, { useFactory: instanceCachingFactory((d) => new SignInUseCase(d.resolve<AuthRepository>(TOKENS.AuthRepository), d.resolve<TokenStore>(TOKENS.TokenStore), d.resolve<UserRepository>(TOKENS.UserRepository))) });
  c.register(SignOutUseCase, { useFactory: instanceCachingFactory((d) => new SignOutUseCase(d.resolve<TokenStore>(TOKENS.TokenStore))) });
  c.register(LoadUserUseCase, { useFactory: instanceCachingFactory((d) => new LoadUserUseCase(d.resolve<TokenStore>(TOKENS.TokenStore), d.resolve<UserRepository>(TOKENS.UserRepository))) });
  c.register(ListDatasetsUseCase, { useFactory: instanceCachingFactory((d) => new ListDatasetsUseCase(d.resolve<DatasetRepository>(TOKENS.DatasetRepository))) });
  registerShell(c, http);
  return c;
}
