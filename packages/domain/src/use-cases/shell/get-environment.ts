import type { Environment, EnvironmentRepository } from "./ports.js";

const NO_SPACE: Environment = { hostedSpace: null, showPersistentStorageWarning: false };

/**
 * The running environment (hosted space or not, persistent-storage warning). Loaded once per app;
 * a failed load counts as "not on a hosted space" and is retried on the next call.
 */
export class GetEnvironmentUseCase {
  private cached: Promise<Environment> | null = null;

  constructor(private readonly environment: EnvironmentRepository) {}

  execute(): Promise<Environment> {
    this.cached ??= this.environment.getEnvironment().catch(() => {
      this.cached = null;
      return NO_SPACE;
    });
    return this.cached;
  }
}
