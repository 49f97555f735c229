/** One recorded request of a `FakeFetch`. */
export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
  at: number;
}

type Reply = Response | Error | ((seen: Seen) => Response | Promise<Response>);

/**
 * A `fetch` to inject into the SDK: answers with the given replies in turn (the last one again when
 * they run out) and records every request. Errors are thrown, as a failed connection does.
 */
export function fakeFetch(...replies: Reply[]) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const entry = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: await request.text(),
      at: Date.now(),
    };
    seen.push(entry);
    const reply = replies[Math.min(seen.length, replies.length) - 1]!;
    if (reply instanceof Error) throw reply;
    return typeof reply === "function" ? reply(entry) : reply.clone();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
