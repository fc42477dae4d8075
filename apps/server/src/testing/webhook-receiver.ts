import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A local webhook receiver for tests (127.0.0.1, free port): records every request; `respond` picks the status. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; version: number; timestamp: string; data: Record<string, unknown> };
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Status to answer (default 200); may wait first. */
  respond: (request: ReceivedRequest, index: number) => number | Promise<number>;
  /** Waits until `predicate` holds over the requests (polls; fails after `timeoutMs`). */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    requests: [],
    respond: () => 200,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.requests)) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: condition not met within ${timeoutMs} ms; got ${receiver.requests.map((r) => r.json?.type).join(", ")}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
      return receiver.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: ReceivedRequest["json"];
      try {
        json = JSON.parse(body) as ReceivedRequest["json"];
      } catch {
        json = { type: "?", version: 0, timestamp: "", data: {} };
      }
      const entry: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, json };
      const index = receiver.requests.length;
      receiver.requests.push(entry);
      void Promise.resolve(receiver.respond(entry, index)).then(
        (status) => {
          res.statusCode = status;
          res.end();
        },
        () => {
          res.statusCode = 500;
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
