export * from "./ports.js";
export * from "./has-dataset-responses.js";
