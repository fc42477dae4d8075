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
  DatasetManagementRepository: Symbol.for("tessera.DatasetManagementRepository"),
  RecordRepository: Symbol.for("tessera.RecordRepository"),
  AgentRepository: Symbol.for("tessera.AgentRepository"),
  ResponseRepository: Symbol.for("tessera.ResponseRepository"),
  QuestionRepository: Symbol.for("tessera.QuestionRepository"),
  FieldRepository: Symbol.for("tessera.FieldRepository"),
  MetadataRepository: Symbol.for("tessera.MetadataRepository"),
  VectorRepository: Symbol.for("tessera.VectorRepository"),
  WorkspaceRepository: Symbol.for("tessera.WorkspaceRepository"),
  JobRepository: Symbol.for("tessera.JobRepository"),
  OAuthRepository: Symbol.for("tessera.OAuthRepository"),
  HubRepository: Symbol.for("tessera.HubRepository"),
  Clock: Symbol.for("tessera.Clock"),
} as const;
