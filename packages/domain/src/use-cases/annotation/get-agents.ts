import type { AgentRepository, QuestionAgents } from "../../ports/record-repository.js";

/** The distinct suggestion agents per question (for the suggestion filter). */
export class GetAgentsUseCase {
  constructor(private readonly agents: AgentRepository) {}
  execute(datasetId: string): Promise<QuestionAgents[]> {
    return this.agents.getAgents(datasetId);
  }
}
