import { startServer } from "./server.js";
import { ConfigError, loadConfig } from "./config.js";
import { StoreStartupError } from "./db/postgres.js";
import { isDatabaseUnavailable } from "./db/availability.js";
import { runMigrateToPostgres } from "./db/migrate-to-postgres.js";
import { limitWorkerHeaps } from "./worker-heaps.js";

const [command, ...rest] = process.argv.slice(2);
if (command === "migrate-to-postgres") {
  // `node dist/main.js migrate-to-postgres --from ./data --to postgres://...` (docs/deployment.md)
  process.exit(await runMigrateToPostgres(rest));
}

limitWorkerHeaps();
const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`\n  ${error.message}\n`);
    process.exit(1);
  }
})();
const server = await startServer(config).catch((error: unknown) => {
  if (error instanceof StoreStartupError) {
    console.error(`\n  ${error.message}\n`);
    process.exit(1);
  }
  throw error;
});
// Once running, the last line of defence (db/postgres.ts gives every connection an error listener):
// an error of an unreachable database that escapes as an uncaught exception or an unhandled rejection
// is logged, never the end of the process; the pool reconnects on the next queries. Anything else
// still ends it. The fault tests fail on the "survived" line: it must never be needed.
const survivable = (kind: string) => (error: unknown) => {
  if (isDatabaseUnavailable(error)) {
    console.error(`database unavailable (${kind}, survived):`, error instanceof Error ? error.message : error);
    return;
  }
  console.error(error); // as Node would, then end as it would
  process.exit(1);
};
process.on("uncaughtException", survivable("uncaught exception"));
process.on("unhandledRejection", survivable("unhandled rejection"));

if (server.owner) {
  console.log("\n  Tessera created the owner account on first start:");
  console.log(`    username: ${server.owner.username}`);
  if (server.owner.password) console.log(`    password: ${server.owner.password}   (shown once: keep it safe)`);
  else console.log("    password: the one set in TESSERA_OWNER_PASSWORD");
  console.log(`    API key:  ${server.owner.apiKey}\n`);
}
console.log(
  `  Tessera is listening on ${server.url.replace("127.0.0.1", "localhost")}  (${config.databaseUrl ? "PostgreSQL" : `data in ${config.dataDir}`})`,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
