import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { verifierKey } from "../../core/checkpoint.js";
import { checkNote, TileReader } from "../log/tile-reader.js";
import { type Bundle, publishedTrust, type SigstoreTrust, sigstoreVerify } from "./sigstore-js.js";

/** One answer of `GET /stamps/{id}/sigstore` under a fault. */
export interface BundleAnswer {
  stampId: string;
  instance: string;
  status: number;
  ms: number;
  body: Bundle & { code?: string };
  retryAfter: string | null;
}

/** A document stamped for a fault test, and its stamp id. */
export interface Stamped {
  id: string;
  document: string;
}

/** POST /stamps with a new small text document, as `curl -F file=@…` sends it. */
export async function stampDocument(baseUrl: string): Promise<Stamped> {
  const document = `a deed for the fault tests ${randomBytes(8).toString("hex")}\n`;
  const form = new FormData();
  form.set("file", new Blob([document]), "deed.txt");
  const res = await fetch(`${baseUrl}/stamps`, { method: "POST", body: form });
  if (res.status !== 201) throw new Error(`POST /stamps answered ${res.status}: ${await res.text()}`);
  return { id: ((await res.json()) as { stamp_id: string }).stamp_id, document };
}

/** Waits until every stamp's batch is sealed (its bundle can be asked for). */
export async function untilSealed(
  baseUrl: string,
  stamps: readonly Stamped[],
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const { id } of stamps) {
    for (;;) {
      const body = (await (await fetch(`${baseUrl}/stamps/${id}`)).json()) as { status: string };
      if (body.status !== "pending") break;
      if (Date.now() > deadline) throw new Error(`stamp ${id} still pending after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** GET /stamps/{id}/sigstore of `baseUrl`, kept whatever it answers (a refused connection throws). */
export async function askBundle(baseUrl: string, stampId: string): Promise<BundleAnswer> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/stamps/${stampId}/sigstore`);
  const body = (await res.json()) as BundleAnswer["body"];
  return {
    stampId,
    instance: baseUrl,
    status: res.status,
    ms: performance.now() - started,
    body,
    retryAfter: res.headers.get("retry-after"),
  };
}

/**
 * Every answer is a bundle or the store's 503 (`code`, Retry-After `retryAfter`), each within
 * `boundMs`; resolves the bundles.
 */
export function bundlesOrUnavailable(
  answers: readonly BundleAnswer[],
  boundMs: number,
  code = "store_unavailable",
  retryAfter = "2",
): BundleAnswer[] {
  for (const a of answers) {
    if (a.status === 200) continue;
    expect({ stampId: a.stampId, status: a.status, code: a.body.code, retryAfter: a.retryAfter }).toEqual({
      stampId: a.stampId,
      status: 503,
      code,
      retryAfter,
    });
  }
  expect(Math.max(0, ...answers.map((a) => a.ms))).toBeLessThan(boundMs);
  return answers.filter((a) => a.status === 200);
}

/** Each bundle verifies with sigstore-js for its stamp's document. */
export async function expectVerified(
  bundles: readonly BundleAnswer[],
  stamps: readonly Stamped[],
  trust: SigstoreTrust,
): Promise<void> {
  const documents = new Map(stamps.map((s) => [s.id, s.document]));
  for (const answer of bundles) {
    await expect(
      sigstoreVerify(answer.body, documents.get(answer.stampId)!, trust),
      `${answer.stampId} from ${answer.instance}`,
    ).resolves.toBeUndefined();
  }
}

/**
 * After a fault: every stamp's bundle, asked of `baseUrl`, verifies for its document; the stamp
 * log, read whole from its tiles by the independent tile reader, holds each stamp once (the
 * bundle's entry at the bundle's index), and its served checkpoint covers every entry and every
 * bundle's. `earlier` are bundles answered during the fault: each names the entry the log holds.
 */
export async function auditAfterFault(
  baseUrl: string,
  stamps: readonly Stamped[],
  earlier: readonly BundleAnswer[] = [],
): Promise<void> {
  const trust = await publishedTrust(baseUrl);
  const bundles: BundleAnswer[] = [];
  for (const stamp of stamps) bundles.push(await askBundle(baseUrl, stamp.id));
  expect(bundles.filter((b) => b.status !== 200).map((b) => `${b.stampId}: ${b.status}`)).toEqual([]);
  await expectVerified(bundles, stamps, trust);

  const logKey = trust.ring.find((k) => k.kind === "log" && k.state === "active")!;
  const origin = `${logKey.origin}/stamps`;
  const key = verifierKey(origin, Buffer.from(logKey.public_key.slice("ed25519:".length), "hex"));
  const note = await (await fetch(`${baseUrl}/log/stamps/tiles/checkpoint`)).text();
  const checkpoint = checkNote(note, key);
  const reader = new TileReader(`${baseUrl}/log/stamps/tiles/`, null);
  await reader.audit(checkpoint);
  // The log holds these stamps only, each once, in entries 0 … size-1.
  expect(checkpoint.size).toBe(stamps.length);
  expect([...reader.entries.keys()].sort((a, b) => a - b)).toEqual([...Array(stamps.length).keys()]);
  const bodies = new Set([...reader.entries.values()].map((e) => e.toString("base64")));
  expect(bodies.size).toBe(stamps.length);
  for (const answer of [...bundles, ...earlier.filter((e) => e.status === 200)]) {
    const entry = answer.body.verificationMaterial.tlogEntries[0]!;
    expect(reader.entries.get(Number(entry.logIndex))?.toString("base64"), answer.stampId).toBe(
      entry.canonicalizedBody,
    );
    expect(Number(entry.inclusionProof.treeSize)).toBeLessThanOrEqual(checkpoint.size);
  }
}
