// `npm run mock`: the REST contract as a mock server (Prism), for SDK and client development.
// Port 4010 unless --port or MOCK_PORT says otherwise; prints one line when ready, stops on Ctrl-C.
import { parseArgs } from "node:util";
import { startPrism } from "./prism.js";

const USAGE = `Usage: npm run mock [-- --port <port>]

Serves specs/openapi.yaml as a mock server (Prism): every operation answers with its example, and a
request that breaks the contract is answered with an error. Stops on Ctrl-C.

Options:
  --port <port>  the port to listen on (default: $MOCK_PORT, else 4010)
  -h, --help     print this help

A request's "Prefer" header picks another answer of the spec: "Prefer: code=404" a documented
status, "Prefer: example=<name>" a named example (GET /stamps: "more_pages", a page with a
next_cursor; the default is the last page, so an SDK iterator over stamps.search() ends).`;

let flags: { port?: string | undefined; help?: boolean | undefined };
try {
  ({ values: flags } = parseArgs({
    options: { port: { type: "string" }, help: { type: "boolean", short: "h" } },
  }));
} catch (err) {
  console.error(`mock: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

const port = Number(flags.port ?? process.env.MOCK_PORT ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(
    `mock: --port must be a port number (0 to 65535), not ${flags.port ?? process.env.MOCK_PORT}`,
  );
  process.exit(2);
}
const prism = await startPrism({ mode: "mock", port });
console.log(`stampd mock server (Prism, specs/openapi.yaml) listening on ${prism.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void prism.stop().then(() => process.exit(0));
  });
}
