import type { Workspace } from "../../entities/workspace.js";
import type { WorkspaceRepository } from "../../ports/more-ports.js";

/** The workspaces the user can use (dataset creation). */
export class GetWorkspacesUseCase {
  constructor(private readonly workspaces: WorkspaceRepository) {}
  async execute(): Promise<Workspace[]> {
    return [...(await this.workspaces.list())].sort((a, b) => a.name.localeCompare(b.name));
  }
}
