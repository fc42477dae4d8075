import type { ReviewItem, ReviewRepository } from "./ports.js";

/** Removes a record's final answer (annotators' responses untouched) and returns its new review state. */
export class ClearFinalAnswerUseCase {
  constructor(private readonly reviews: ReviewRepository) {}
  async execute(recordId: string): Promise<ReviewItem> {
    await this.reviews.clearFinalAnswer(recordId);
    return this.reviews.getReviewItem(recordId);
  }
}
