import { readFileSync } from "node:fs";

/** The service version, from package.json, in semantic-version form (specs/openapi.yaml info, Versioning). */
export const VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;
