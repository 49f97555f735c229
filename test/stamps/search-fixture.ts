import { createHash } from "node:crypto";
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createGrpcClient } from "../../sdk/src/index.js";
import { ManualClock } from "../../server/clock.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema } from "../store/postgres.js";

/** The engines every search suite runs on: a real service over each store. */
export const engines = ["sqlite", "postgres"] as const;
export type Engine = (typeof engines)[number];

/** A stamped document of the fixture: its content and the stamps made of it, oldest first. */
export interface SearchFixture {
  svc: RunningService;
  /** The account that made every stamp below. */
  owner: string;
  /** A key of another account, which made none. */
  stranger: string;
  /** The document stamped five times over REST (SHA3-256), a second apart. */
  document: string;
  sha3: string;
  /** The five stamp ids of `document`, oldest first. */
  sha3Ids: string[];
  /** Their `created_at`, oldest first. */
  sha3Times: string[];
  /** A stamp made over gRPC of the same hex digest labelled sha256 (a different hash). */
  sha256Label: { hash: string; id: string };
  close(): Promise<void>;
}

export const sha3Hex = (text: string) => bytesToHex(sha3_256(new TextEncoder().encode(text)));
export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** Starts a service on `engine` and stamps the fixture's documents through its real transports. */
export async function searchFixture(
  engine: Engine,
  env: Record<string, string> = {},
): Promise<SearchFixture> {
  const schema = engine === "postgres" ? await createSchema() : undefined;
  const clock = new ManualClock("2026-05-01T10:00:00.000Z");
  const svc = await startService(schema ? { DATABASE_URL: schema.url, ...env } : env, { clock });
  const owner = (await issueKey(svc)).key;
  const stranger = (await issueKey(svc)).key;
  const document = `a contract, revision ${engine}`;
  const sha3 = sha3Hex(document);
  const sha3Ids: string[] = [];
  const sha3Times: string[] = [];
  for (let i = 0; i < 5; i++) {
    clock.advance(1000);
    const form = new FormData();
    form.append("file", new Blob([document]), "contract.txt");
    const res = await fetch(`${svc.baseUrl}/stamps`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${owner}` },
    });
    if (res.status !== 201) throw new Error(`POST /stamps answered ${res.status}: ${await res.text()}`);
    const stamp = (await res.json()) as { stamp_id: string; created_at: string };
    sha3Ids.push(stamp.stamp_id);
    sha3Times.push(stamp.created_at);
  }
  clock.advance(1000);
  const grpc = createGrpcClient({ baseUrl: svc.grpcUrl, apiKey: owner });
  const labelled = await grpc.createStamp({ contentHash: `sha256:${sha3}` });
  return {
    svc,
    owner,
    stranger,
    document,
    sha3,
    sha3Ids,
    sha3Times,
    sha256Label: { hash: `sha256:${sha3}`, id: labelled.stamp!.id },
    async close() {
      await svc.close();
      await schema?.drop();
    },
  };
}
