import type { ReviewList, ReviewListQuery, ReviewRepository } from "./ports.js";

/** The records to review (disagreements by default), with every annotator's response, and the review progress. */
export class ListReviewRecordsUseCase {
  constructor(private readonly reviews: ReviewRepository) {}
  execute(datasetId: string, query: ReviewListQuery): Promise<ReviewList> {
    return this.reviews.listReviewRecords(datasetId, query);
  }
}
