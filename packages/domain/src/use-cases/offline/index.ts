export * from "./queue-answer.js";
export * from "./send-next-answer.js";
export * from "./resolve-queued-answer.js";
export * from "./keep-form-draft.js";
export * from "./restore-form-draft.js";
export * from "./unsent-work.js";
export * from "./clear-offline-answers.js";
export * from "./list-queued-answers.js";
