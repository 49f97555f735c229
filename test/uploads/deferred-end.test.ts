import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { errorHandler } from "../../server/rest/middleware/error-handler.js";
import { receiveUpload } from "../../server/rest/uploads/uploads.js";

// receiveUpload runs an operation's `finish` only once the whole form has been parsed: an upload
// whose file was read to its end never commits when the form turns out malformed, even when the
// offending field arrives after every byte of the file was read.
const BOUNDARY = "deferred-end-boundary";
let server: http.Server;
let port: number;
let fileBytesRead: () => void;
let committed = false;

beforeAll(async () => {
  const app = express();
  app.post("/upload", async (req, res) => {
    const limits = {
      maxBytes: 1024,
      maxFields: 16,
      maxFieldBytes: 1024,
      fileRequired: true,
      spool: { folder: "", minFreeBytes: 0, retryAfterSeconds: 2 },
    };
    const result = await receiveUpload(req, limits, {
      plan: () => ({ settings: null, certain: true }),
      settings: () => null,
      async read(file) {
        let size = 0;
        for await (const chunk of file) {
          size += (chunk as Buffer).length;
          if (size === 5) fileBytesRead();
        }
        return size;
      },
      reuse: (size) => size,
      async finish(_fields, upload) {
        committed = true;
        return upload!.digest;
      },
    });
    res.json({ size: result });
  });
  app.use(errorHandler(createLogger({ LOG_LEVEL: "silent" })));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const nextTurns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

it("a bad field that arrives after the whole file was read fails the upload before the operation commits", async () => {
  const allRead = new Promise<void>((resolve) => {
    fileBytesRead = resolve;
  });
  const req = http.request({
    port,
    method: "POST",
    path: "/upload",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
  const response = new Promise<http.IncomingMessage>((resolve) => req.on("response", resolve));
  // The file part and the boundary that ends it: busboy has seen the whole file.
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--${BOUNDARY}`,
  );
  await allRead;
  await nextTurns(5); // room for an end-of-file to reach the consumer, had it been sent
  expect(committed).toBe(false);
  // A field sent twice, the second time after the file.
  req.end(
    `\r\nContent-Disposition: form-data; name="late"\r\n\r\nv\r\n--${BOUNDARY}` +
      `\r\nContent-Disposition: form-data; name="late"\r\n\r\nw\r\n--${BOUNDARY}--\r\n`,
  );
  const res = await response;
  const body = await new Promise<string>((resolve) => {
    let text = "";
    res.on("data", (c) => {
      text += c;
    });
    res.on("end", () => resolve(text));
  });
  expect(res.statusCode).toBe(400);
  expect(JSON.parse(body).code).toBe("invalid_multipart");
  expect(committed).toBe(false);
});
