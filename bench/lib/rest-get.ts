// The rest-get benchmarks (rest-get.bench.ts on SQLite, rest-get-postgres.bench.ts on PostgreSQL):
// GET /stamps/{id} over 50 connections, stampd against a bare express 5 app, each in a process of
// its own; the load is autocannon's, in a third. stampd runs as it ships (auth, limiter with limits
// too high to refuse, request validation, the stamp read from its store with its live proof state)
// except that responses are not validated.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareHttp, httpRatio, httpRow } from "./http-compare.js";
import { start } from "./processes.js";
import { report } from "./report.js";
import { rounds, seconds } from "./settings.js";
import { createStamp, startStampdProcess } from "./stampd-process.js";
import { type Engine, inWorkspace } from "./workspace.js";

const CONNECTIONS = 50;
const TARGET = 0.6;

/**
 * SQLite: the bare app answers a fixed JSON value, the very response stampd gave for the stamp,
 * serialised per request. PostgreSQL (issue #34): the bare app reads the stamp's row by id from
 * the same schema through a `pg` Pool and answers it as JSON.
 */
export function restGet(engine: Engine): Promise<void> {
  return inWorkspace(engine, async ({ folder, schema, env, servers }) => {
    const stampd = await startStampdProcess(join(folder, "stampd"), env);
    servers.push(stampd);
    const base = `http://127.0.0.1:${stampd.ready.http}`;
    const stampPath = await createStamp(base);
    const body = await (await fetch(`${base}${stampPath}`)).text();
    const jsonFile = join(folder, "stamp.json");
    writeFileSync(jsonFile, body);
    const bare = await start<{ http: number }>("bench/lib/bare-express.ts", {
      args: schema ? ["row", schema.url] : ["json", jsonFile],
    });
    servers.push(bare);

    const settings = { rounds: rounds(3), seconds: seconds(5), warmupSeconds: seconds(2) };
    const postgres = engine === "postgres";
    const runs = await compareHttp(
      {
        stampd: { connections: CONNECTIONS, url: `${base}${stampPath}`, pid: stampd.pid, postgres },
        "bare express": {
          connections: CONNECTIONS,
          url: `http://127.0.0.1:${bare.ready.http}${schema ? stampPath : "/json"}`,
          pid: bare.pid,
          postgres,
        },
      },
      settings,
    );
    const ratio = httpRatio(runs.stampd, runs["bare express"]);
    report(postgres ? "rest-get-postgres" : "rest-get", {
      rows: [httpRow("stampd", runs.stampd), httpRow("bare express", runs["bare express"])],
      targets: [
        {
          what: `GET /stamps/{id}${postgres ? " on PostgreSQL" : ""}, ${CONNECTIONS} connections: req/s`,
          target: `≥ ${TARGET} × bare express 5 (${postgres ? "one row by id from PostgreSQL" : "fixed JSON"})`,
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
  });
}
