export * from "./ports.js";
export * from "./list-my-workspaces.js";
export * from "./get-dataset-progress.js";
export * from "./get-environment.js";
