// npm run bench -- rest-create: POST /stamps with a 1 KiB file over 50 connections, against a bare
// express 5 app that parses the same multipart body with busboy and answers a small JSON
// (bench/lib/bare-express.ts). Both servers run in processes of their own, started here; the load
// is autocannon's, in a third process. stampd runs as it ships (auth, limiter with limits too high
// to refuse, request validation, SHA3-256 hashing, Ed25519 signing, SQLite with synchronous=FULL,
// batching in the background) except that responses are not validated.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareHttp, httpRatio, httpRow } from "./lib/http-compare.js";
import { start, stop, tempDir } from "./lib/processes.js";
import { report } from "./lib/report.js";
import { rounds, seconds } from "./lib/settings.js";
import { startStampdProcess } from "./lib/stampd-process.js";

const CONNECTIONS = 50;
const FILE_BYTES = 1024;
const BOUNDARY = "stampd-bench-boundary";
const TARGET = 0.5;

const dir = tempDir();
const bodyFile = join(dir.path, "body.txt");
writeFileSync(bodyFile, multipartBody());
const [stampd, bare] = await Promise.all([
  startStampdProcess(join(dir.path, "stampd")),
  start<{ http: number }>("bench/lib/bare-express.ts", { args: ["upload"] }),
]);

try {
  const post = {
    connections: CONNECTIONS,
    method: "POST" as const,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    bodyFile,
  };
  const settings = { rounds: rounds(3), seconds: seconds(5), warmupSeconds: seconds(2) };
  const runs = await compareHttp(
    {
      stampd: { ...post, url: `http://127.0.0.1:${stampd.ready.http}/stamps` },
      "bare express": { ...post, url: `http://127.0.0.1:${bare.ready.http}/upload` },
    },
    settings,
  );
  const ratio = httpRatio(runs.stampd, runs["bare express"]);
  report("rest-create", {
    rows: [httpRow("stampd", runs.stampd), httpRow("bare express", runs["bare express"])],
    targets: [
      {
        what: `POST /stamps, ${FILE_BYTES} B file, ${CONNECTIONS} connections: req/s`,
        target: `≥ ${TARGET} × bare express 5 + busboy`,
        unit: "×",
        ...ratio,
        met: ratio.value >= TARGET,
      },
    ],
    note: "req/s of the best round (the one least disturbed by other work); ratio = stampd / bare.",
    connections: CONNECTIONS,
    fileBytes: FILE_BYTES,
    ...settings,
    runs,
  });
} finally {
  await Promise.all([stop(stampd.process), stop(bare.process)]);
  dir.cleanup();
}

/** One form with one file part of FILE_BYTES printable bytes (text fields would come first). */
function multipartBody(): string {
  const content = "stampd benchmark document. ".repeat(64).slice(0, FILE_BYTES);
  return (
    `--${BOUNDARY}\r\n` +
    'Content-Disposition: form-data; name="file"; filename="document.txt"\r\n' +
    "Content-Type: text/plain\r\n\r\n" +
    `${content}\r\n--${BOUNDARY}--\r\n`
  );
}
