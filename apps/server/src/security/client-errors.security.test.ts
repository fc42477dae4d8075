import { Agent, request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/** Issue 21: a 431 (URL over the header limit) on a kept-alive connection must not reset the client's next request. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const LONG_PATH = `/api/v1/datasets?name=${"x".repeat(20_000)}`;

/** The raw answer on one socket: everything the server writes until it closes (or 3 s pass). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      out += d;
    });
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, 3000);
  });
}

function get(agent: Agent, port: number, path: string): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: server.ownerHeaders }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("client errors", () => {
  it("answers an oversized URL 431 with Connection: close and a JSON detail, then closes the socket", async () => {
    const port = Number(new URL(server.url).port);
    const out = await raw(port, `GET ${LONG_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    const [head, body] = out.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(head!.toLowerCase()).toContain("connection: close");
    expect(JSON.parse(body!)).toEqual({ detail: "The request's URL or headers are too large" });
  });

  it("answers a malformed request line 400 with Connection: close", async () => {
    const port = Number(new URL(server.url).port);
    const out = await raw(port, "GARBAGE\r\n\r\n");
    expect(out.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(out.toLowerCase()).toContain("connection: close");
  });

  it("never resets the next request of a kept-alive client after a 431", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = Number(new URL(server.url).port);
    try {
      for (let i = 0; i < 20; i++) {
        const refused = await get(agent, port, LONG_PATH);
        expect(refused.status).toBe(431);
        expect(refused.connection).toBe("close");
        const next = await get(agent, port, "/api/v1/me");
        expect(next.status).toBe(200);
        expect(JSON.parse(next.body)).toMatchObject({ username: "owner" });
      }
    } finally {
      agent.destroy();
    }
  });
});
