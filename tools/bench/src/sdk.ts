import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Api } from "./api.ts";
import type { DatasetGenerator } from "./data.ts";
import { REPO_ROOT } from "./server.ts";

export type SdkResult = { records: number; seconds: number; recordsPerSecond: number } | { skipped: string };

/** Logs `count` generated records through the official Python SDK (records.log, batch 256) into a new dataset. */
export async function sdkImport(owner: Api, gen: DatasetGenerator, count: number, offset: number): Promise<SdkResult> {
  const python = process.env.TESSERA_BENCH_PYTHON ?? join(REPO_ROOT, ".venv/bin/python");
  if (!existsSync(python)) return { skipped: `no Python SDK environment at ${python} (run tools/scripts/stages/50-sdk.sh)` };
  const ws = await owner.json<{ name: string }>("POST", "/workspaces", { name: "bench-sdk-ws" });
  const dir = mkdtempSync(join(tmpdir(), "tessera-bench-sdk-"));
  try {
    const file = join(dir, "records.jsonl");
    const out = createWriteStream(file);
    for (let i = 0; i < count; i++) {
      if (!out.write(JSON.stringify(gen.record(offset + i)) + "\n")) await new Promise<void>((r) => out.once("drain", () => r()));
    }
    await new Promise<void>((res, rej) => out.end((error?: Error | null) => (error ? rej(error) : res())));
    const script = join(dirname(fileURLToPath(import.meta.url)), "sdk_log.py");
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
      const child = spawn(python, [script, owner.baseUrl, owner.apiKey, ws.name, "bench-sdk", file], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "",
        stderr = "";
      child.stdout.on("data", (d) => {
        stdout += String(d);
      });
      child.stderr.on("data", (d) => {
        stderr += String(d);
      });
      child.on("close", (c) => res({ code: c, stdout, stderr }));
    });
    if (code !== 0) return { skipped: `the SDK run failed (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" | ")}` };
    const line = stdout.trim().split("\n").at(-1) ?? "{}";
    const parsed = JSON.parse(line) as { records: number; seconds: number; records_per_second: number };
    return { records: parsed.records, seconds: parsed.seconds, recordsPerSecond: parsed.records_per_second };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
