import { parseArgs } from "node:util";
import { FAKE_HUB_TOKEN, startFakeHub } from "./index.js";

const { values } = parseArgs({
  // `pnpm start -- --port 6901` forwards a literal "--"; ignore it.
  args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === "--")),
  options: {
    port: { type: "string", default: process.env.FAKE_HUB_PORT ?? "6901" },
    host: { type: "string", default: process.env.FAKE_HUB_HOST ?? "127.0.0.1" },
    datasets: { type: "string" },
    token: { type: "string", multiple: true },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`fake-hub: invalid --port ${values.port}`);
  process.exit(2);
}
const hub = await startFakeHub({
  port,
  host: values.host,
  ...(values.datasets ? { datasetsDir: values.datasets } : {}),
  ...(values.token ? { tokens: values.token } : {}),
});
console.log(`  Fake Hub dataset viewer listening on ${hub.url}`);
console.log(`  datasets: ${[...hub.datasets.keys()].join(", ")}`);
console.log(`  gated datasets accept: Authorization: Bearer ${values.token?.join(" | ") ?? FAKE_HUB_TOKEN}`);
console.log(`  point Tessera at it: TESSERA_HUB_DATASETS_SERVER_URL=${hub.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void hub.close().then(() => process.exit(0));
  });
}
