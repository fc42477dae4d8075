export * from "./ports.js";
export * from "./download-records.js";
