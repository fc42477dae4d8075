export { freePort } from "./port.js";
export { REPO_ROOT, SERVER_MAIN, startBuiltServer, type BuiltServer, type BuiltServerOptions } from "./built-server.js";
