import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MAIN_SEMI_SPACE_MIB, MALLOC_ARENAS, MALLOC_MMAP_THRESHOLD, TUNED_MARKER, tunedCommand } from "./process-tuning.js";

describe("tunedCommand", () => {
  it("adds the young generation's cap and the malloc arenas, keeps the rest of the command", () => {
    const c = tunedCommand({ execArgv: ["--cpu-prof"], argv: ["/srv/dist/main.js", "--demo"], env: { PATH: "/bin" } });
    expect(c).toEqual({
      execArgv: [`--max-semi-space-size=${MAIN_SEMI_SPACE_MIB}`, "--cpu-prof"],
      argv: ["/srv/dist/main.js", "--demo"],
      env: {
        PATH: "/bin",
        MALLOC_ARENA_MAX: String(MALLOC_ARENAS),
        MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD),
        [TUNED_MARKER]: "1",
      },
    });
  });
  it("keeps an operator's own settings and never re-executes twice", () => {
    const own = tunedCommand({ execArgv: ["--max-semi-space-size=32"], argv: ["main.js"], env: { MALLOC_ARENA_MAX: "8" } });
    expect(own).toEqual({ execArgv: ["--max-semi-space-size=32"], argv: ["main.js"], env: { MALLOC_ARENA_MAX: "8", [TUNED_MARKER]: "1" } });
    expect(tunedCommand({ execArgv: [], argv: ["main.js"], env: { [TUNED_MARKER]: "1" } })).toBeNull();
    expect(tunedCommand({ execArgv: [], argv: ["main.js"], env: { TESSERA_PROCESS_TUNING: "0" } })).toBeNull();
  });
});

describe("tuneProcess", () => {
  it("re-executes a real node process in place with the settings (same pid, arguments kept)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-tuning-"));
    try {
      const script = join(dir, "probe.mjs");
      const module = fileURLToPath(new URL("./process-tuning.ts", import.meta.url));
      writeFileSync(
        script,
        `const { tuneProcess } = await import(${JSON.stringify(module)});
tuneProcess();
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2), arenas: process.env.MALLOC_ARENA_MAX }));`,
      );
      const env: Record<string, string> = Object.fromEntries(
        Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith("MALLOC_") && k !== TUNED_MARKER) as [
          string,
          string,
        ][],
      );
      const run = spawnSync(process.execPath, [script, "--demo"], { env, encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout.trim()) as { pid: number; execArgv: string[]; argv: string[]; arenas: string };
      expect(out.pid).toBe(run.pid); // replaced in place: the parent's child is the tuned process
      expect(out.execArgv).toContain(`--max-semi-space-size=${MAIN_SEMI_SPACE_MIB}`);
      expect(out.argv).toEqual(["--demo"]);
      expect(out.arenas).toBe(String(MALLOC_ARENAS));
      const untuned = spawnSync(process.execPath, [script], { env: { ...env, TESSERA_PROCESS_TUNING: "0" }, encoding: "utf8" });
      expect((JSON.parse(untuned.stdout.trim()) as { execArgv: string[] }).execArgv).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
