import net from "node:net";

/** A plain TCP connection to a listener, recording what the server sends and when it hangs up. */
export interface RawSocket {
  socket: net.Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves with what was received once the server has closed the connection; rejects after `deadlineMs`. */
  closed(deadlineMs?: number): Promise<string>;
  /** Writes `text` one byte at a time, one every `everyMs`, until the connection closes. */
  trickle(text: string, everyMs: number): void;
}

/** @param localAddress the address to connect from (any of 127.0.0.0/8 works on loopback). */
export async function rawConnect(url: string, localAddress?: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ port: Number(port), host: hostname, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let data = "";
  socket.on("data", (chunk) => {
    data += chunk.toString("latin1");
  });
  // A reset by the server is a close like any other here.
  socket.on("error", () => {});
  const ended = new Promise<string>((resolve) => socket.once("close", () => resolve(data)));
  let timer: NodeJS.Timeout | undefined;
  socket.once("close", () => clearInterval(timer));
  return {
    socket,
    received: () => data,
    closed(deadlineMs = 10_000) {
      let deadline: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`still open after ${deadlineMs} ms`)), deadlineMs);
      });
      return Promise.race([ended, late]).finally(() => clearTimeout(deadline));
    },
    trickle(text, everyMs) {
      let i = 0;
      timer = setInterval(() => {
        if (i < text.length && !socket.destroyed) socket.write(text[i++]!);
      }, everyMs);
    },
  };
}
