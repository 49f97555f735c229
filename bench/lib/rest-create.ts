// The rest-create benchmarks (rest-create.bench.ts on SQLite, rest-create-postgres.bench.ts on
// PostgreSQL): POST /stamps with a 1 KiB file over 50 connections, stampd against its baselines,
// every server in a process of its own started here, the load autocannon's in another. stampd runs
// as it ships (auth, limiter with limits too high to refuse, request validation, SHA3-256 hashing,
// Ed25519 signing, the store's group commit, batching in the background) except that responses are
// not validated.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareHttp, httpRatio, httpRow } from "./http-compare.js";
import { type Started, start } from "./processes.js";
import { report } from "./report.js";
import { rounds, seconds } from "./settings.js";
import { startStampdProcess } from "./stampd-process.js";
import { type Engine, inWorkspace } from "./workspace.js";

const CONNECTIONS = 50;
const FILE_BYTES = 1024;
const BOUNDARY = "stampd-bench-boundary";

/** A baseline: the entry that serves it, its arguments, the path it stamps on, and the target. */
interface Baseline {
  entry: string;
  args: string[];
  path: string;
  target: number;
  title: string;
}

/**
 * SQLite: (a) a bare express 5 app parsing the same multipart body with busboy, (b) the obvious
 * stamping server on SQLite with synchronous=FULL (issue #24). PostgreSQL (issue #34): the obvious
 * stamping server with one INSERT per request through a `pg` Pool, in the same fresh schema as
 * stampd's tables.
 */
function baselines(engine: Engine, where: string): Record<string, Baseline> {
  const stamping = { entry: "bench/lib/express-stamp.ts", path: "/stamps", target: 1 };
  if (engine === "postgres") {
    const title = "express + busboy + SHA3-256 + Ed25519 + pg Pool INSERT";
    return { "express stamping (postgres)": { ...stamping, args: [where], title } };
  }
  return {
    "bare express": {
      entry: "bench/lib/bare-express.ts",
      args: ["upload"],
      path: "/upload",
      target: 0.5,
      title: "bare express 5 + busboy",
    },
    "express stamping": {
      ...stamping,
      args: [join(where, "express-stamp.db")],
      title: "express + busboy + SHA3-256 + Ed25519 + SQLite",
    },
  };
}

export function restCreate(engine: Engine): Promise<void> {
  return inWorkspace(engine, async ({ folder, schema, env, servers }) => {
    const others = baselines(engine, schema?.url ?? folder);
    const names = Object.keys(others);
    // stampd first: on PostgreSQL its start creates the schema's tables.
    const stampd = await startStampdProcess(join(folder, "stampd"), env);
    const started = [stampd];
    for (const n of names) started.push(await start(others[n]!.entry, { args: others[n]!.args }));
    servers.push(...started);
    const post = postStamps(folder);
    const url = (server: Started<{ http: number }>, path: string) =>
      `http://127.0.0.1:${server.ready.http}${path}`;
    const postgres = engine === "postgres";
    const candidates = Object.fromEntries([
      ["stampd", { ...post, url: url(stampd, "/stamps"), pid: stampd.pid, postgres }],
      ...names.map((n, i) => {
        const server = started[i + 1]!;
        return [n, { ...post, url: url(server, others[n]!.path), pid: server.pid, postgres }];
      }),
    ]);
    const settings = { rounds: rounds(3), seconds: seconds(5), warmupSeconds: seconds(2) };
    const runs = await compareHttp(candidates, settings);
    const on = postgres ? " on PostgreSQL" : "";
    report(engine === "sqlite" ? "rest-create" : "rest-create-postgres", {
      rows: ["stampd", ...names].map((n) => httpRow(n, runs[n]!)),
      targets: names.map((n) => {
        const ratio = httpRatio(runs.stampd!, runs[n]!);
        return {
          what: `POST /stamps${on}, ${FILE_BYTES} B file, ${CONNECTIONS} connections: req/s`,
          target: `≥ ${others[n]!.target} × ${others[n]!.title}`,
          unit: "×",
          ...ratio,
          met: ratio.value >= others[n]!.target,
        };
      }),
      note: "req/s of the best round (the one least disturbed by other work); ratio = stampd / baseline.",
      connections: CONNECTIONS,
      fileBytes: FILE_BYTES,
      ...settings,
      runs,
    });
  });
}

/**
 * The load of POST /stamps, less its URL and duration: CONNECTIONS connections each sending one
 * form with a FILE_BYTES file, written into `folder`.
 */
export function postStamps(folder: string) {
  const bodyFile = join(folder, "body.txt");
  writeFileSync(bodyFile, multipartBody());
  return {
    connections: CONNECTIONS,
    method: "POST" as const,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    bodyFile,
  };
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
