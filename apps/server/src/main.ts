// The server's command (`node dist/main.js`). It first replaces itself by the same command with the
// V8 and malloc settings of process-tuning.ts (which must be set at a process's start), then loads
// the server: serve.ts is a chunk of its own (build.mjs), so nothing of it runs twice.
import { tuneProcess } from "./process-tuning.js";

tuneProcess();
await import("./serve.js");
