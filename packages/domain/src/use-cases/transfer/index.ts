export * from "./ports.js";
export * from "./download-records.js";
export * from "./column-mapping.js";
export * from "./upload-file.js";
export * from "./import-upload.js";
export * from "./get-upload-progress.js";
export * from "./cancel-upload.js";
export * from "./download-failed-rows.js";
