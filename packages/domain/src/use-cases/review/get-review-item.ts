import type { ReviewItem, ReviewRepository } from "./ports.js";

/** One record's review state: every annotator's response, suggestions, majority, final answer. */
export class GetReviewItemUseCase {
  constructor(private readonly reviews: ReviewRepository) {}
  execute(recordId: string): Promise<ReviewItem> {
    return this.reviews.getReviewItem(recordId);
  }
}
