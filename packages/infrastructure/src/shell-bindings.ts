import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import {
  GetDatasetProgressUseCase,
  GetEnvironmentUseCase,
  ListMyWorkspacesUseCase,
  SHELL_TOKENS,
  TOKENS,
  type DatasetRepository,
  type EnvironmentRepository,
  type MyWorkspacesRepository,
} from "@tessera/domain";
import type { KyInstance } from "ky";
import { HttpMyWorkspacesRepository } from "./repositories/workspace-repository.js";
import { HttpEnvironmentRepository } from "./repositories/environment-repository.js";

/** Part of the composition root (called by createContainer): the web shell's repositories and use cases. */
export function registerShell(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance): void {
  c.register(SHELL_TOKENS.MyWorkspacesRepository, { useFactory: instanceCachingFactory((d) => new HttpMyWorkspacesRepository(http(d))) });
  c.register(SHELL_TOKENS.EnvironmentRepository, { useFactory: instanceCachingFactory((d) => new HttpEnvironmentRepository(http(d))) });
  c.register(ListMyWorkspacesUseCase, {
    useFactory: instanceCachingFactory(
      (d) => new ListMyWorkspacesUseCase(d.resolve<MyWorkspacesRepository>(SHELL_TOKENS.MyWorkspacesRepository)),
    ),
  });
  c.register(GetEnvironmentUseCase, {
    useFactory: instanceCachingFactory(
      (d) => new GetEnvironmentUseCase(d.resolve<EnvironmentRepository>(SHELL_TOKENS.EnvironmentRepository)),
    ),
  });
  c.register(GetDatasetProgressUseCase, {
    useFactory: instanceCachingFactory((d) => new GetDatasetProgressUseCase(d.resolve<DatasetRepository>(TOKENS.DatasetRepository))),
  });
}
