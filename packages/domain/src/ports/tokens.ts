/**
 * Injection tokens for ports and use cases. The domain declares them; the composition root in
 * @tessera/infrastructure binds them. The domain never imports a container library.
 */
export const TOKENS = {
  AuthRepository: Symbol.for("tessera.AuthRepository"),
  TokenStore: Symbol.for("tessera.TokenStore"),
  UserRepository: Symbol.for("tessera.UserRepository"),
  DatasetRepository: Symbol.for("tessera.DatasetRepository"),
  Notifications: Symbol.for("tessera.Notifications"),
} as const;
