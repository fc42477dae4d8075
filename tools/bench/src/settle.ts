import { readThreadsCpuMs } from "./server.ts";

type ThreadsCpu = Map<number, { name: string; ms: number }>;

/** The thread V8's CPU profiler runs in each profiled isolate (`--cpu-prof`), as /proc/<pid>/task/<tid>/comm names it. */
export const PROFILER_THREAD = "v8:ProfEvntProc";
/** The server's background work counts as ended below this CPU per second of a step (250 ms per 5 s: 5% of a core). */
export const QUIET_MS_PER_S = 50;
/**
 * What one profiled isolate costs idle per second besides its profiler thread (left out): the sampled thread's handling
 * of 1,000 samples a second. Measured on an idle server (3,000 records, 2 read threads, 2026-11-27): 10-14 ms/s per
 * isolate, and its profiler thread 17-21 ms/s more; in all ~90 ms/s for 3 isolates, so that `--settle` with
 * `--profile` never went under 50 ms/s and waited its 20 minutes.
 */
export const PROFILED_IDLE_MS_PER_S = 15;

/**
 * The server's CPU between two snapshots of its threads (readThreadsCpuMs) that counts for settling: every thread's but
 * the profilers', less the sampling's idle cost per profiled isolate (one profiler thread each).
 */
export function settleCpuMs(before: ThreadsCpu, after: ThreadsCpu, stepMs: number): number {
  let used = 0;
  let profiled = 0;
  for (const [tid, t] of after) {
    if (t.name === PROFILER_THREAD) {
      profiled++;
      continue;
    }
    used += t.ms - (before.get(tid)?.ms ?? 0);
  }
  return Math.max(0, used - (profiled * PROFILED_IDLE_MS_PER_S * stepMs) / 1000);
}

/** Whether a step of `stepMs` between two snapshots was quiet (settleCpuMs under QUIET_MS_PER_S). */
export function quietStep(before: ThreadsCpu, after: ThreadsCpu, stepMs: number): boolean {
  return settleCpuMs(before, after, stepMs) < (QUIET_MS_PER_S * stepMs) / 1000;
}

/**
 * Waits until the server's background work after an import or a start has ended: `quietSteps` quiet steps in a row (two
 * of 5 s: under 5% of a core over 10 s), at most `maxMs`. Returns the steps taken. With `--profile` the profiler's own
 * CPU is left out (settleCpuMs). `read` and `sleep` are for tests.
 */
export async function waitUntilSettled(
  pid: number,
  options: {
    stepMs?: number;
    quietSteps?: number;
    maxMs?: number;
    read?: (pid: number) => ThreadsCpu;
    sleep?: (ms: number) => Promise<void>;
  } = {},
): Promise<{ steps: number; settled: boolean }> {
  const { stepMs = 5000, quietSteps = 2, maxMs = 20 * 60_000, read = readThreadsCpuMs } = options;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let last = read(pid);
  let steps = 0;
  for (let quiet = 0; quiet < quietSteps;) {
    if (steps * stepMs >= maxMs) return { steps, settled: false };
    await sleep(stepMs);
    steps++;
    const now = read(pid);
    quiet = quietStep(last, now, stepMs) ? quiet + 1 : 0;
    last = now;
  }
  return { steps, settled: true };
}
