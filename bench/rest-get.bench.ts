// npm run bench -- rest-get: GET /stamps/{id} over 50 connections, against a bare express 5 app
// answering a fixed JSON value of the same size: the very response stampd gave for that stamp
// (bench/lib/bare-express.ts serialises it per request, as stampd does). Both servers run in
// processes of their own; the load is autocannon's, in a third process. stampd runs as it ships
// (auth, limiter with limits too high to refuse, request validation, the stamp read from SQLite
// with its live proof state) except that responses are not validated.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareHttp, httpRatio, httpRow } from "./lib/http-compare.js";
import { start, stop, tempDir } from "./lib/processes.js";
import { report } from "./lib/report.js";
import { rounds, seconds } from "./lib/settings.js";
import { createStamp, startStampdProcess } from "./lib/stampd-process.js";

const CONNECTIONS = 50;
const TARGET = 0.6;

const dir = tempDir();
const stampd = await startStampdProcess(join(dir.path, "stampd"));
let bare: Awaited<ReturnType<typeof start<{ http: number }>>> | undefined;

try {
  const base = `http://127.0.0.1:${stampd.ready.http}`;
  const stampPath = await createStamp(base);
  const response = await fetch(`${base}${stampPath}`);
  const body = await response.text();
  const jsonFile = join(dir.path, "stamp.json");
  writeFileSync(jsonFile, body);
  bare = await start<{ http: number }>("bench/lib/bare-express.ts", { args: ["json", jsonFile] });

  const settings = { rounds: rounds(3), seconds: seconds(5), warmupSeconds: seconds(2) };
  const runs = await compareHttp(
    {
      stampd: { connections: CONNECTIONS, url: `${base}${stampPath}` },
      "bare express": { connections: CONNECTIONS, url: `http://127.0.0.1:${bare.ready.http}/json` },
    },
    settings,
  );
  const ratio = httpRatio(runs.stampd, runs["bare express"]);
  report("rest-get", {
    rows: [httpRow("stampd", runs.stampd), httpRow("bare express", runs["bare express"])],
    targets: [
      {
        what: `GET /stamps/{id}, ${CONNECTIONS} connections: req/s`,
        target: `≥ ${TARGET} × bare express 5 (fixed JSON)`,
        unit: "×",
        ...ratio,
        met: ratio.value >= TARGET,
      },
    ],
    note: "req/s of the best round (the one least disturbed by other work); ratio = stampd / bare.",
    responseBytes: Buffer.byteLength(body),
    connections: CONNECTIONS,
    ...settings,
    runs,
  });
} finally {
  await Promise.all([stop(stampd.process), bare && stop(bare.process)]);
  dir.cleanup();
}
