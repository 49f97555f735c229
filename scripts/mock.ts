// `npm run mock`: the REST contract as a mock server (Prism), for SDK and client development.
// Port 4010 unless MOCK_PORT says otherwise; prints one line when ready, stops on Ctrl-C.
import { startPrism } from "./prism.js";

const port = Number(process.env.MOCK_PORT ?? 4010);
const prism = await startPrism({ mode: "mock", port });
console.log(`stampd mock server (Prism, specs/openapi.yaml) listening on ${prism.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void prism.stop().then(() => process.exit(0));
  });
}
