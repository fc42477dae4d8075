import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function over every .cpuprofile of a directory (the server child's `--cpu-prof`). */
export function topFunctions(dir: string, limit = 20): Array<{ fn: string; selfMs: number; percent: number }> {
  const self = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      if (!node) return;
      const dt = (profile.timeDeltas[i] ?? 0) / 1000;
      const { functionName, url, lineNumber } = node.callFrame;
      const short = url.includes("node_modules/") ? url.slice(url.lastIndexOf("node_modules/") + 13) : url.slice(url.lastIndexOf("/") + 1);
      const where = url ? `${short}:${lineNumber + 1}` : "";
      const key = `${functionName || "(anonymous)"} ${where}`.trim();
      self.set(key, (self.get(key) ?? 0) + dt);
      total += dt;
    });
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([fn, ms]) => ({ fn, selfMs: Math.round(ms), percent: total ? Math.round((ms / total) * 1000) / 10 : 0 }));
}
