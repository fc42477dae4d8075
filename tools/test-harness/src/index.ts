export { freePort } from "#port";
export { REPO_ROOT, SERVER_MAIN, startBuiltServer, type BuiltServer, type BuiltServerOptions } from "#built-server";
export { seededRandom } from "#random";
export { asStored, cosine, exactTop } from "#vectors";
