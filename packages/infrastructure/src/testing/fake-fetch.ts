/** Test support: a `fetch` stand-in that records each request and answers with `handler`. */
export type Handler = (request: Request) => Response | Promise<Response>;

export function fakeFetch(handler: Handler): { fn: typeof fetch; calls: Request[] } {
  const calls: Request[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    calls.push(request.clone());
    return handler(request);
  }) as typeof fetch;
  return { fn, calls };
}

/** A JSON response. */
export const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
