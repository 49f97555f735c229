import { once } from "node:events";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

// The fault tests' proxy (test/helpers/tcp-proxy.ts) against an echo server: each fault looks, from
// the client's side, as the fault it stands for.

let echo: Server;
let proxy: TcpProxy;

beforeAll(async () => {
  echo = createServer((socket) => socket.on("error", () => {}).pipe(socket));
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const { port } = echo.address() as { port: number };
  proxy = await startTcpProxy({ target: { host: "127.0.0.1", port } });
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => echo.close(resolve));
});

async function connect(): Promise<Socket> {
  const socket = createConnection({ host: "127.0.0.1", port: proxy.port });
  await once(socket, "connect");
  return socket;
}

async function echoed(socket: Socket, text: string): Promise<string> {
  socket.write(text);
  const [chunk] = await once(socket, "data");
  return String(chunk);
}

/** What arrives on `socket` within `ms` (nothing, during a stall). */
async function receivedWithin(socket: Socket, ms: number): Promise<string> {
  let got = "";
  const collect = (chunk: Buffer) => {
    got += String(chunk);
  };
  socket.on("data", collect);
  await new Promise((r) => setTimeout(r, ms));
  socket.off("data", collect);
  return got;
}

describe("the TCP proxy of the fault tests", () => {
  it("forwards both ways", async () => {
    const socket = await connect();
    expect(await echoed(socket, "ping")).toBe("ping");
    socket.destroy();
  });

  it("cut resets open connections and refuses new ones; restore accepts them again", async () => {
    const socket = await connect();
    await echoed(socket, "before");
    // once() would reject on the reset's 'error'; the close that follows is what is awaited.
    socket.on("error", () => {});
    const closed = new Promise((resolve) => socket.on("close", resolve));
    proxy.cut();
    await closed;
    const refused = createConnection({ host: "127.0.0.1", port: proxy.port });
    const [err] = await once(refused, "error");
    expect((err as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    await proxy.restore();
    const again = await connect();
    expect(await echoed(again, "after")).toBe("after");
    again.destroy();
  });

  it("stall keeps sockets open and forwards nothing; restore forwards what was held", async () => {
    const open = await connect();
    await echoed(open, "warm");
    proxy.stall();
    open.write("held");
    const opened = createConnection({ host: "127.0.0.1", port: proxy.port });
    await once(opened, "connect");
    opened.write("queued");
    expect(await receivedWithin(open, 200)).toBe("");
    expect(await receivedWithin(opened, 50)).toBe("");
    expect(open.destroyed).toBe(false);
    const late = Promise.all([once(open, "data"), once(opened, "data")]);
    await proxy.restore();
    const [[held], [queued]] = await late;
    expect(String(held)).toBe("held");
    expect(String(queued)).toBe("queued");
    open.destroy();
    opened.destroy();
  });
});
