export * from "./common.js";
export * from "./fields.js";
export * from "./questions.js";
export * from "./metadata.js";
