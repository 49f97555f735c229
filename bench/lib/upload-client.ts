// Child process of bench/upload.bench.ts: streams a file as the file part of a multipart upload
// (no buffering: the file is read as it is sent), with text fields before or after it, so the
// server's client has a process of its own. Commands arrive over IPC; each answer is an UploadResult.
import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { pipeline } from "node:stream/promises";

export interface UploadCommand {
  url: string;
  file: string;
  /** Text fields of the form, sent before the file part unless `fileFirst`. */
  fields?: Record<string, string>;
  fileFirst?: boolean;
}

export interface UploadResult {
  status: number;
  /** From the first byte sent to the last byte of the response. */
  seconds: number;
  body: string;
}

const BOUNDARY = "stampd-bench-upload";

process.on("message", async (command: UploadCommand | "exit") => {
  if (command === "exit") process.exit(0);
  process.send!(await upload(command));
});

async function upload({ url, file, fields = {}, fileFirst = false }: UploadCommand): Promise<UploadResult> {
  const text = Object.entries(fields)
    .map(
      ([name, value]) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join("");
  const filePart =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\n";
  const head = Buffer.from(fileFirst ? filePart : text + filePart);
  const tail = Buffer.from(`\r\n${fileFirst ? text : ""}--${BOUNDARY}--\r\n`);
  const started = performance.now();
  const req = http.request(url, {
    method: "POST",
    headers: {
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
      "content-length": head.length + statSync(file).size + tail.length,
    },
  });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  req.write(head);
  await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), req, { end: false });
  req.end(tail);
  const res = await response;
  let body = "";
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode!, seconds: (performance.now() - started) / 1000, body };
}
