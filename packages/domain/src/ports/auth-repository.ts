export interface AuthRepository {
  /** Exchanges username and password for an access token; throws RepositoryError(ERROR_SIGNING_IN). */
  signIn(username: string, password: string): Promise<string>;
}

export interface TokenStore {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}
