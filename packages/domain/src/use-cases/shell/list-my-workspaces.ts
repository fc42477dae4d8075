import type { MyWorkspacesRepository, WorkspaceSummary } from "./ports.js";

/** The workspaces the signed-in user belongs to, by name (user settings). */
export class ListMyWorkspacesUseCase {
  constructor(private readonly workspaces: MyWorkspacesRepository) {}

  async execute(): Promise<WorkspaceSummary[]> {
    const list = await this.workspaces.listMine();
    return [...list].sort((a, b) => a.name.localeCompare(b.name));
  }
}
