import { createPrivateKey, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import { ed25519Signer, type Signer } from "../../server/keys/ed25519.js";
import { baseUrl, positiveInteger } from "../client.js";
import { jsonReport, junitReport, textReport } from "../conformance/report.js";
import { runConformance } from "../conformance/run.js";
import { UsageError } from "../errors.js";
import { EXIT_FAILURE } from "../exit-codes.js";

interface ConformanceFlags {
  url: string;
  grpcUrl?: string;
  wsUrl?: string;
  key: string;
  otherKey?: string;
  feeIssuerKey?: string;
  write?: boolean;
  mock?: boolean;
  rate: number;
  confirmTimeout: number;
  maxUploadBytes?: number;
  junit?: string;
  json?: string;
}

/** Requests per second by default: polite to a production deployment (about 300 a minute). */
const DEFAULT_RATE = 5;

/**
 * `stampd conformance`: the contract of specs/ checked against any deployment (docs/conformance.md).
 * Exit 0 when nothing failed (checks not run do not fail a run), 1 when a check failed, 2 on a
 * usage error.
 */
async function conformance(flags: ConformanceFlags): Promise<void> {
  const feeIssuer = flags.feeIssuerKey ? readIssuer(flags.feeIssuerKey) : undefined;
  const runId = `cf_${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, "")
    .slice(0, 14)}_${randomBytes(3).toString("hex")}`;
  const report = await runConformance(
    {
      url: flags.url,
      grpcUrl: flags.grpcUrl,
      wsUrl: flags.wsUrl,
      key: flags.key,
      otherKey: flags.otherKey,
      feeIssuer,
      write: flags.write === true,
      mock: flags.mock === true,
      rate: flags.rate,
      confirmSeconds: flags.confirmTimeout,
      uploadLimit: flags.maxUploadBytes,
      runId,
    },
    // Progress on stderr, so that stdout holds the report alone.
    (r) =>
      process.stderr.write(r.outcome.status === "failed" ? "F" : r.outcome.status === "passed" ? "." : "-"),
  );
  process.stderr.write("\n");
  if (flags.junit) writeFileSync(flags.junit, junitReport(report));
  if (flags.json) writeFileSync(flags.json, jsonReport(report));
  console.log(textReport(report));
  if (report.results.some((r) => r.outcome.status === "failed")) process.exitCode = EXIT_FAILURE;
}

/** An Ed25519 private key in PEM (PKCS#8), as `stampd receipts` keeps the development issuer's. */
function readIssuer(path: string): Signer {
  try {
    return ed25519Signer(createPrivateKey(readFileSync(path)));
  } catch (err) {
    throw new UsageError(`--fee-issuer-key ${path}: ${(err as Error).message}`);
  }
}

/** A WebSocket address; without a scheme, ws: (as --url takes http:). */
function wsAddress(value: string): string {
  try {
    return new URL(/^wss?:\/\//i.test(value) ? value : `ws://${value}`).toString();
  } catch {
    throw new InvalidArgumentError("expected an address such as ws://localhost:8080/ws");
  }
}

export function registerConformance(program: Command): void {
  program
    .command("conformance")
    .description("check a deployment against the contract (REST, gRPC, WebSocket): see docs/conformance.md")
    .addOption(
      new Option("--url <base-url>", "REST address of the target").argParser(baseUrl).makeOptionMandatory(),
    )
    .addOption(
      new Option("--key <key>", "API key of the account the checks act as")
        .env("STAMPD_API_KEY")
        .makeOptionMandatory(),
    )
    .option(
      "--other-key <key>",
      "API key of a second account (checks that one account cannot reach another's resources)",
    )
    .option("--grpc-url <url>", "gRPC address (svc.v1 checks are not run without it)", baseUrl)
    .option("--ws-url <url>", "WebSocket endpoint (default: --url with ws(s): and /ws)", wsAddress)
    .option(
      "--fee-issuer-key <file>",
      "Ed25519 private key (PEM) of a fee issuer the target trusts, for vault heartbeats",
    )
    .option(
      "--write",
      "also run the checks that create stamps, identities and vaults (tagged with the run id)",
    )
    .option(
      "--mock",
      "the target is a mock of the spec (Prism): check only what answers from examples can show",
    )
    .option("--rate <n>", "requests per second at most", positiveInteger, DEFAULT_RATE)
    .option(
      "--confirm-timeout <seconds>",
      "how long to wait for a stamp's batch to be sealed",
      positiveInteger,
      30,
    )
    .option(
      "--max-upload-bytes <n>",
      "the target's MAX_UPLOAD_BYTES: the 413 checks send one byte more (not run without it)",
      positiveInteger,
    )
    .option("--junit <file>", "also write the results as JUnit XML")
    .option("--json <file>", "also write the results as JSON")
    .action(conformance);
}
