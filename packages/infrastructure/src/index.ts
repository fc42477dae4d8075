export * from "./container.js";
export * from "./http/http-client.js";
export * from "./storage/local-storage.js";
export * from "./repositories/auth-repository.js";
export * from "./repositories/user-repository.js";
export * from "./repositories/dataset-repository.js";
