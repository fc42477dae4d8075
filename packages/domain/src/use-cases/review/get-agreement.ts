import type { AgreementReport, ReviewRepository, ReviewScope } from "./ports.js";

/** The agreement figures of a dataset, restricted to a scope (owners and admins). */
export class GetAgreementUseCase {
  constructor(private readonly reviews: ReviewRepository) {}
  execute(datasetId: string, scope: ReviewScope = {}): Promise<AgreementReport> {
    return this.reviews.getAgreement(datasetId, scope);
  }
}
