// npm run bench -- rest-create: POST /stamps with a 1 KiB file over 50 connections, against two
// baselines: a bare express 5 app that parses the same multipart body with busboy and answers a
// small JSON (bench/lib/bare-express.ts), and the obvious stamping server (bench/lib/express-stamp.ts:
// express + busboy, SHA3-256, an Ed25519 signature, one SQLite row per request with
// synchronous=FULL; issue #24). Every server runs in a process of its own, started here; the load
// is autocannon's, in another process. stampd runs as it ships (auth, limiter with limits too high
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
const TARGETS = { "bare express": 0.5, "express stamping": 1 };
const TARGET_NAMES = {
  "bare express": "bare express 5 + busboy",
  "express stamping": "express + busboy + SHA3-256 + Ed25519 + SQLite",
};

const dir = tempDir();
const bodyFile = join(dir.path, "body.txt");
writeFileSync(bodyFile, multipartBody());
const [stampd, bare, stamping] = await Promise.all([
  startStampdProcess(join(dir.path, "stampd")),
  start<{ http: number }>("bench/lib/bare-express.ts", { args: ["upload"] }),
  start<{ http: number }>("bench/lib/express-stamp.ts", { args: [join(dir.path, "express-stamp.db")] }),
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
      "express stamping": { ...post, url: `http://127.0.0.1:${stamping.ready.http}/stamps` },
    },
    settings,
  );
  const baselines = Object.keys(TARGETS) as (keyof typeof TARGETS)[];
  report("rest-create", {
    rows: [httpRow("stampd", runs.stampd), ...baselines.map((name) => httpRow(name, runs[name]))],
    targets: baselines.map((name) => {
      const ratio = httpRatio(runs.stampd, runs[name]);
      return {
        what: `POST /stamps, ${FILE_BYTES} B file, ${CONNECTIONS} connections: req/s`,
        target: `≥ ${TARGETS[name]} × ${TARGET_NAMES[name]}`,
        unit: "×",
        ...ratio,
        met: ratio.value >= TARGETS[name],
      };
    }),
    note: "req/s of the best round (the one least disturbed by other work); ratio = stampd / baseline.",
    connections: CONNECTIONS,
    fileBytes: FILE_BYTES,
    ...settings,
    runs,
  });
} finally {
  await Promise.all([stop(stampd.process), stop(bare.process), stop(stamping.process)]);
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
