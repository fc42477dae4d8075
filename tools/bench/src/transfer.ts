/**
 * Record downloads and uploads (issue 23), against the real built server on a fresh data directory:
 *
 *   node src/transfer.ts --records 50000 --upload-rows 200000 [--upload-row-bytes 90]
 *
 * 1. Seeds `--records` records (text field, 3 metadata properties, a label suggestion; a response on
 *    every 10th) through the bulk API, in batches of 500.
 * 2. Exports them as JSON Lines, CSV and Parquet (`GET /datasets/{id}/records/export`): records/s
 *    from the request to the last byte, bytes, and the server's RSS peak during each export
 *    (sampled every 50 ms from /proc) above its RSS before it.
 * 3. Writes a CSV of `--upload-rows` rows to a temporary file, streams it to `POST /uploads`, imports
 *    it into a new dataset and polls until the job settles: upload MB/s, import rows/s, and the
 *    server's RSS peak above its RSS before the upload.
 * Prints a markdown table (stdout); progress on stderr.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { Api } from "./api.ts";
import { readRss, startServer } from "./server.ts";
import { topFunctions } from "./profile.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const RECORDS = arg("records", 50_000);
const UPLOAD_ROWS = arg("upload-rows", 200_000);
/** Bytes of each uploaded row's text (about): `--upload-rows 500000 --upload-row-bytes 2000` makes a 1 GB file. */
const UPLOAD_ROW_BYTES = arg("upload-row-bytes", 90);
/** `--profile DIR`: the server's CPU profile (.cpuprofile) of the run, and its top functions. `--skip-upload`: exports only. */
const PROFILE = process.argv.includes("--profile") ? process.argv[process.argv.indexOf("--profile") + 1] : undefined;
const SKIP_UPLOAD = process.argv.includes("--skip-upload");
const log = (message: string) => process.stderr.write(`${message}\n`);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Samples the server's RSS every 50 ms while `work` runs; returns its result and the peak above the RSS before. */
async function withPeak<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; before: number; peakAbove: number }> {
  const before = readRss(pid).rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, readRss(pid).rss);
  }, 50);
  try {
    const value = await work();
    peak = Math.max(peak, readRss(pid).rss);
    return { value, before, peakAbove: peak - before };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const server = await startServer({ cpuProfileDir: PROFILE });
  const api = new Api(server.url, server.ownerApiKey);
  const rows: string[][] = [["measure", "value"]];
  const dir = mkdtempSync(join(tmpdir(), "tessera-bench-transfer-"));
  try {
    const ws = await api.json<{ id: string }>("POST", "/workspaces", { name: "transfer-bench" });
    const dataset = async (name: string) => {
      const ds = await api.json<{ id: string }>("POST", "/datasets", { name, workspace_id: ws.id });
      await api.json("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
      await api.json("POST", `/datasets/${ds.id}/questions`, {
        name: "label",
        title: "Label",
        required: true,
        settings: {
          type: "label_selection",
          options: [
            { value: "yes", text: "Yes" },
            { value: "no", text: "No" },
          ],
        },
      });
      for (const [name2, type] of [
        ["source", "terms"],
        ["length", "integer"],
        ["quality", "float"],
      ] as const) {
        await api.json("POST", `/datasets/${ds.id}/metadata-properties`, { name: name2, title: name2, settings: { type } });
      }
      await api.json("PUT", `/datasets/${ds.id}/publish`);
      return ds.id;
    };
    const me = await api.json<{ id: string }>("GET", "/me");
    const source = await dataset("source");
    log(`seeding ${RECORDS} records…`);
    const seedStart = performance.now();
    for (let start = 0; start < RECORDS; start += 500) {
      const items = Array.from({ length: Math.min(500, RECORDS - start) }, (_, k) => {
        const i = start + k;
        return {
          external_id: `r-${i}`,
          fields: { text: `Record ${i}: the quick brown fox jumps over the lazy dog, a sentence of about a hundred characters.` },
          metadata: { source: ["news", "forum", "wiki"][i % 3], length: i % 500, quality: (i % 100) / 100 },
          suggestions: [{ question_name: "label", value: i % 2 ? "yes" : "no", score: 0.5, agent: "bench" }],
          responses: i % 10 === 0 ? [{ user_id: me.id, status: "submitted", values: { label: { value: "yes" } } }] : [],
        };
      });
      const res = await api.send("POST", `/datasets/${source}/records/bulk`, JSON.stringify({ items }));
      if (res.status !== 201) throw new Error(`bulk: ${res.status} ${res.bytes.toString().slice(0, 300)}`);
    }
    log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    for (const format of ["jsonl", "csv", "parquet"] as const) {
      const { value, before, peakAbove } = await withPeak(server.pid, async () => {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/v1/datasets/${source}/records/export?format=${format}`, {
          headers: { "X-Argilla-Api-Key": server.ownerApiKey },
        });
        let bytes = 0;
        let firstByteMs = 0;
        const reader = res.body!.getReader();
        for (let part = await reader.read(); !part.done; part = await reader.read()) {
          if (bytes === 0) firstByteMs = performance.now() - started;
          bytes += part.value.length;
        }
        return { seconds: (performance.now() - started) / 1000, bytes, firstByteMs };
      });
      const rate = Math.round(RECORDS / value.seconds);
      log(`export ${format}: ${rate} records/s`);
      rows.push([`export ${format}: records/s (${RECORDS} records)`, String(rate)]);
      rows.push([`export ${format}: first byte / size`, `${value.firstByteMs.toFixed(0)} ms / ${mb(value.bytes)} MB`]);
      rows.push([`export ${format}: server RSS peak above before`, `${mb(peakAbove)} MB (before ${mb(before)} MB)`]);
    }

    if (!SKIP_UPLOAD) {
      const csvPath = join(dir, "upload.csv");
      const out = createWriteStream(csvPath);
      out.write("id,text,source,length,quality,label\n");
      const words = "and some words to make it long enough ";
      const padding = words
        .repeat(Math.max(0, Math.ceil((UPLOAD_ROW_BYTES - 60) / words.length)))
        .slice(0, Math.max(0, UPLOAD_ROW_BYTES - 60));
      for (let i = 0; i < UPLOAD_ROWS; i++) {
        if (
          !out.write(
            `u-${i},"Uploaded row ${i}, with a comma ${padding}",${["news", "forum", "wiki"][i % 3]},${i % 500},${(i % 100) / 100},${i % 2 ? "yes" : "no"}\n`,
          )
        )
          await once(out, "drain");
      }
      out.end();
      await once(out, "finish");
      const size = statSync(csvPath).size;
      const target = await dataset("uploaded");
      log(`uploading ${mb(size)} MB (${UPLOAD_ROWS} rows)…`);
      const {
        value: upload,
        before,
        peakAbove,
      } = await withPeak(server.pid, async () => {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/api/v1/uploads?filename=upload.csv`, {
          method: "POST",
          headers: { "X-Argilla-Api-Key": server.ownerApiKey, "content-type": "application/octet-stream", "content-length": String(size) },
          body: createReadStream(csvPath) as unknown as BodyInit,
          duplex: "half",
        } as RequestInit);
        const preview = (await res.json()) as { id: string };
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(preview)}`);
        const uploadSeconds = (performance.now() - t0) / 1000;
        const mapping = {
          fields: [{ source: "text", target: "text" }],
          metadata: [
            { source: "source", target: "source" },
            { source: "length", target: "length" },
            { source: "quality", target: "quality" },
          ],
          suggestions: [{ source: "label", target: "label" }],
          external_id: "id",
        };
        await api.json("POST", `/uploads/${preview.id}/import`, { dataset_id: target, mapping });
        const t1 = performance.now();
        for (;;) {
          const state = await api.json<{ status: string; rows_stored: number; rows_failed: number; error: string | null }>(
            "GET",
            `/uploads/${preview.id}`,
          );
          if (!["queued", "importing"].includes(state.status))
            return { uploadSeconds, importSeconds: (performance.now() - t1) / 1000, state };
          await new Promise((r) => setTimeout(r, 250));
        }
      });
      if (upload.state.status !== "finished" || upload.state.rows_stored !== UPLOAD_ROWS)
        throw new Error(`import: ${JSON.stringify(upload.state)}`);
      rows.push([`upload: ${mb(size)} MB CSV streamed to disk`, `${(size / 1024 / 1024 / upload.uploadSeconds).toFixed(1)} MB/s`]);
      rows.push([`upload import: rows/s (${UPLOAD_ROWS} rows)`, String(Math.round(UPLOAD_ROWS / upload.importSeconds))]);
      rows.push(["upload + import: server RSS peak above before", `${mb(peakAbove)} MB (before ${mb(before)} MB)`]);
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${rows.map((r, i) => `| ${r.join(" | ")} |${i === 0 ? "\n|---|---|" : ""}`).join("\n")}\n`);
  if (PROFILE) {
    process.stdout.write("\nserver CPU profile, top functions (self time):\n");
    for (const f of topFunctions(PROFILE, 30)) process.stdout.write(`${f.selfMs} ms ${f.percent}% ${f.fn}\n`);
  }
}

await main();
