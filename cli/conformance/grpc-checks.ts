import { createHash, randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { StampdGrpc } from "../../sdk/src/grpc/client.js";
import {
  APIError,
  GrpcServingStatus,
  GrpcStampStatus,
  grpcError,
  RateLimitError,
} from "../../sdk/src/index.js";
import { type Check, CheckFailed, expectThat, NotRun } from "./check.js";
import type { Ctx } from "./rest-recipe.js";
import { sleep } from "./traffic.js";

/** Seconds a streaming check waits for what it expects. */
const STREAM_SECONDS = 10;
/** Milliseconds between two stamps of the WatchStamps check. */
const STAMP_EVERY_MS = 2000;

const hash = () => `sha256:${createHash("sha256").update(randomBytes(32)).digest("hex")}`;
/** The SDK's name of a gRPC code (`grpcError`): `Code.NotFound` is `not_found`. */
const codeName = (code: Code) => (Code[code] ?? String(code)).replace(/(?<!^)([A-Z])/g, "_$1").toLowerCase();

/**
 * Throttled calls the kit waits out before it takes the answer as given: the SDK's gRPC client
 * waits each `grpc-retry-pushback-ms` (at most a minute), as traffic.ts waits out REST's Retry-After.
 */
const MAX_THROTTLED = 3;

/** The longest pushback the kit waits out when a stream is refused. */
const MAX_WAIT_MS = 60_000;

/**
 * Runs a check again after the pushback of a rate-limit refusal: the SDK waits out those of unary
 * calls itself, but not a stream's (what a stream did is its caller's to resume), and a check
 * starts its streams afresh.
 */
async function patiently(run: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const waitMs = err instanceof RateLimitError ? err.retryAfter : undefined;
      if (waitMs === undefined || attempt >= MAX_THROTTLED) throw err;
      await sleep(Math.min(waitMs * 1000, MAX_WAIT_MS));
    }
  }
}

/** Awaits a call that must fail with `code`. */
async function expectCode(call: () => Promise<unknown>, code: Code, request: string): Promise<void> {
  try {
    await call();
  } catch (err) {
    const got = grpcError(err);
    const name = got instanceof APIError ? got.code : got.name;
    if (name === codeName(code)) return;
    throw new CheckFailed(codeName(code), `${name}: ${detailOf(got)}`, request);
  }
  throw new CheckFailed(codeName(code), "OK", request);
}

/** The status message the server sent (the SDK error's cause), else the error's own. */
function detailOf(err: Error): string {
  return err.cause instanceof ConnectError ? err.cause.rawMessage : err.message;
}

/** The svc.v1 StampService checks; `url` undefined: not run (needs --grpc-url). */
export function grpcChecks(ctx: Ctx, url: string | undefined, keys: { owner: string }): Check[] {
  const client = (apiKey: string) => new StampdGrpc({ baseUrl: url, apiKey, maxRetries: MAX_THROTTLED });
  const owner = url ? client(keys.owner) : undefined;
  // A key in the right format that no server issued: refused, never taken as anonymous.
  const unknownKey = url ? client(`svc_test_${"A".repeat(43)}`) : undefined;
  const check = (name: string, writes: boolean, run: () => Promise<void>): Check => ({
    area: "grpc",
    name,
    run: async () => {
      if (!url) throw new NotRun("needs --grpc-url");
      if (writes && !ctx.write) throw new NotRun("creates stamps: needs --write");
      await patiently(run);
    },
  });
  const tag = () => ({ conformance: ctx.runId });
  return [
    check("HealthCheck answers SERVING", false, async () => {
      const { status } = await owner!.healthCheck();
      expectThat(
        status === GrpcServingStatus.SERVING,
        "SERVING",
        () => GrpcServingStatus[status] ?? String(status),
      );
    }),
    check("GetStamp of an unknown stamp answers NOT_FOUND", false, () =>
      expectCode(() => owner!.getStamp("stp_00000000000000000000000000"), Code.NotFound, "GetStamp stp_000…"),
    ),
    check("SearchStamps of an unknown hash answers an empty page", false, async () => {
      const { stamps } = await owner!.searchStamps({ contentHash: hash() });
      expectThat(stamps.length === 0, "no stamps", () => `${stamps.length} stamps`);
    }),
    check("GetStamp with an unknown key answers UNAUTHENTICATED", false, () =>
      expectCode(
        () => unknownKey!.getStamp("stp_00000000000000000000000000"),
        Code.Unauthenticated,
        "GetStamp stp_000… (unknown key)",
      ),
    ),
    check("CreateStamp of a malformed hash answers INVALID_ARGUMENT", true, () =>
      expectCode(
        () => owner!.createStamp({ contentHash: "sha256:nope", metadata: tag() }),
        Code.InvalidArgument,
        "CreateStamp sha256:nope",
      ),
    ),
    check("CreateStamp, GetStamp and Verify agree on a new stamp", true, async () => {
      const contentHash = hash();
      const { stamp } = await owner!.createStamp({
        contentHash,
        description: `conformance ${ctx.runId}`,
        metadata: tag(),
      });
      expectThat(
        stamp?.id.startsWith("stp_") === true &&
          stamp.status === GrpcStampStatus.PENDING &&
          stamp.metadata.conformance === ctx.runId,
        "a PENDING stamp stp_… carrying the run's metadata",
        () => JSON.stringify({ id: stamp?.id, status: stamp?.status, metadata: stamp?.metadata }),
      );
      const got = (await owner!.getStamp(stamp!.id)).stamp;
      expectThat(got?.contentHash === contentHash, `GetStamp content_hash ${contentHash}`, () =>
        String(got?.contentHash),
      );
      const { verified } = await owner!.verify({ stampId: stamp!.id, contentHash });
      expectThat(verified, "Verify: verified", () => "not verified");
    }),
    check("BatchStamp stamps every item", true, async () => {
      const answer = await owner!.batchStamp([
        { contentHash: hash(), metadata: tag() },
        { contentHash: hash(), metadata: tag() },
      ]);
      expectThat(
        answer.successCount === 2 && answer.stamps.length === 2,
        "success_count 2, 2 stamps",
        () => `success_count ${answer.successCount}, ${answer.stamps.length} stamps`,
      );
    }),
    check("StreamStamps answers each request in order", true, async () => {
      const sent = [hash(), hash()];
      const got: string[] = [];
      for await (const { stamp } of owner!.stream(
        sent.map((contentHash) => ({ contentHash, metadata: tag() })),
      ))
        got.push(stamp?.contentHash ?? "");
      expectThat(JSON.stringify(got) === JSON.stringify(sent), sent.join(", "), () => got.join(", "));
    }),
    check("WatchStamps delivers a stamp created while watching", true, async () => {
      const signal = AbortSignal.timeout(STREAM_SECONDS * 1000);
      const created = new Set<string>();
      let found = false;
      let stop = false;
      // When the watch starts to deliver is the server's affair: stamp every STAMP_EVERY_MS until one
      // shows, beginning after the watch has been asked for, which is charged first. At 2.0 a stamp
      // every 2 s, the pace of an authenticated key's refill (60 a minute): a key without much
      // budget left by the checks before still keeps up.
      const stamping = (async () => {
        while (!stop && !signal.aborted) {
          await sleep(STAMP_EVERY_MS);
          const contentHash = hash();
          created.add(contentHash);
          await owner!.createStamp({ contentHash, metadata: tag() });
        }
      })();
      // Handled now (awaited below): a refusal while the watch runs must not end the process.
      stamping.catch(() => {});
      try {
        for await (const stamp of owner!.watch("", { signal })) {
          found = created.has(stamp.contentHash);
          if (found) break;
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      } finally {
        stop = true;
        await stamping;
      }
      expectThat(
        found,
        `one of ${created.size} new stamps within ${STREAM_SECONDS} s`,
        () => "none delivered",
      );
    }),
  ];
}
