export * from "./ports.js";
export * from "./get-agreement.js";
export * from "./list-review-records.js";
export * from "./submit-final-answer.js";
export * from "./clear-final-answer.js";
export * from "./get-review-item.js";
