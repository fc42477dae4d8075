import type { AnswerValues } from "../../entities/answer.js";
import { ValidationError } from "../../errors/validation-error.js";
import type { ReviewItem, ReviewRepository } from "./ports.js";

/** Sends the reviewer's final answer (at least one answered question) and returns the record's new review state. */
export class SubmitFinalAnswerUseCase {
  constructor(private readonly reviews: ReviewRepository) {}
  async execute(recordId: string, values: AnswerValues): Promise<ReviewItem> {
    if (Object.keys(values).length === 0)
      throw new ValidationError({ key: "review.finalAnswer.empty", text: "A final answer needs at least one answered question" });
    await this.reviews.setFinalAnswer(recordId, values);
    return this.reviews.getReviewItem(recordId);
  }
}
