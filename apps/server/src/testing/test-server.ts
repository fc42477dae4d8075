import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "../server.js";
import { loadConfig } from "../config.js";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "./pg-test-database.js";

export interface TestServer extends RunningServer {
  ownerPassword: string;
  /** Bearer headers for the owner. */
  ownerHeaders: Record<string, string>;
  login(username: string, password: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * Starts the real server on a free loopback port with a temporary data directory, or, when
 * `TESSERA_TEST_DATABASE_URL` is set, on a fresh PostgreSQL database copied from a migrated template.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-test-"));
  const ownerPassword = "owner-password-1";
  const adminUrl = testDatabaseUrl();
  const database: TestDatabase | null = adminUrl && !env.DATABASE_URL ? await createTestDatabase(adminUrl) : null;
  const config = {
    ...loadConfig(
      {
        TESSERA_OWNER_USERNAME: "owner",
        TESSERA_OWNER_PASSWORD: ownerPassword,
        ...(database ? { DATABASE_URL: database.url, TESSERA_DATABASE_POOL_SIZE: "4" } : {}),
        ...env,
      },
      [],
    ),
    dataDir,
    port: 0,
    host: "127.0.0.1",
    webDist: null,
  };
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const login = async (username: string, password: string) => {
    const res = await fetch(`${server.url}/api/v1/token`, { method: "POST", body: new URLSearchParams({ username, password }) });
    if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
    const { access_token } = (await res.json()) as { access_token: string };
    return { authorization: `Bearer ${access_token}` };
  };
  return {
    ...server,
    ownerPassword,
    login,
    ownerHeaders: await login("owner", ownerPassword),
    stop: async () => {
      await server.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
