import { startServer } from "./server.js";
import { loadConfig } from "./config.js";

const config = loadConfig();
const server = await startServer(config);
if (server.owner) {
  console.log("\n  Tessera created the owner account on first start:");
  console.log(`    username: ${server.owner.username}`);
  if (server.owner.password) console.log(`    password: ${server.owner.password}   (shown once: keep it safe)`);
  else console.log("    password: the one set in TESSERA_OWNER_PASSWORD");
  console.log(`    API key:  ${server.owner.apiKey}\n`);
}
console.log(`  Tessera is listening on ${server.url.replace("127.0.0.1", "localhost")}  (data in ${config.dataDir})`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => { void server.close().then(() => process.exit(0)); });
}
