import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  path: string;
  body: Buffer;
}

/**
 * A local HTTP endpoint answering with `answer`: stands in for an OpenTimestamps calendar or an
 * Ethereum node, which the tests cannot reach. It tests stampd's side of those protocols only.
 */
export async function stubServer(
  answer: (req: StubRequest) => { status: number; body?: Uint8Array | string; type?: string },
): Promise<{ url: string; requests: StubRequest[]; close(): Promise<void> }> {
  const requests: StubRequest[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = { method: req.method ?? "GET", path: req.url ?? "/", body: Buffer.concat(chunks) };
    requests.push(request);
    const { status, body, type } = answer(request);
    res.writeHead(status, { "content-type": type ?? "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
