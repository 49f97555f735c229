import { checkStamp } from "../../core/check.js";
import { jcs } from "../../core/jcs.js";
import { verifyStampProof } from "../../core/stamp-proof.js";
import { verifyEd25519 } from "../../server/keys/ed25519.js";
import type { StampDocument } from "../../server/stamps/stamp-repository.js";
import type { RestCalls } from "../helpers/rest-calls.js";
import type { Inspection } from "./crash-database.js";
import type { AckedStamp, Ledger, SleeperRecord } from "./crash-ledger.js";
import type { SeededRandom } from "./seeded-random.js";

type Time = string | Date | null;
const ms = (t: Time) => (t === null ? Number.NaN : new Date(t).getTime());

/** A decimal amount as an exact integer of 10^-18 units (amounts are decimal text, never floats). */
function atto(amount: string | number): bigint {
  const [whole, fraction = ""] = String(amount).split(".");
  return BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, "0").slice(0, 18));
}

/** The stored stamp is the acknowledged one: byte for byte (REST) or hash and time (gRPC). */
function sameStamp(acked: AckedStamp, storedJson: string): string | undefined {
  if (acked.stampJson) {
    return storedJson === jcs(acked.stampJson) ? undefined : `${acked.id}: stored stamp_json differs`;
  }
  const stored = JSON.parse(storedJson) as StampDocument;
  const hash = `${stored.document.algorithm}:${stored.document.hash}`;
  if (hash !== acked.contentHash)
    return `${acked.id}: stored hash ${hash}, acknowledged ${acked.contentHash}`;
  if (ms(stored.created_at) !== ms(acked.createdAt)) return `${acked.id}: stored created_at differs`;
  return undefined;
}

/**
 * Every acknowledged stamp is in the database and intact, and those of this iteration verify
 * offline against the service key.
 */
export async function checkStampsStored(
  db: Inspection,
  ledger: Ledger,
  iteration: number,
  serviceKey: string,
): Promise<string[]> {
  const rows = await db.rows<{ id: string; stamp_json: string }>("SELECT id, stamp_json FROM stamps");
  const stored = new Map(rows.map((r) => [r.id, r.stamp_json]));
  const problems: string[] = [];
  for (const acked of ledger.stamps.values()) {
    const json = stored.get(acked.id);
    if (json === undefined) {
      problems.push(`${acked.id} (${acked.via}, iteration ${acked.iteration}) was acknowledged but is gone`);
      continue;
    }
    const differs = sameStamp(acked, json);
    if (differs) problems.push(differs);
    if (acked.iteration !== iteration) continue;
    const result = await checkStamp(JSON.parse(json), {
      verifySignature: verifyEd25519,
      trustedServiceKeys: [serviceKey],
    });
    if (!result.is_valid) problems.push(`${acked.id} does not verify: ${result.details.failures.join("; ")}`);
  }
  return problems;
}

/** Batches hold exactly their stamps and proofs; the log's entries run 0..n-1 and name their batches. */
export async function checkProofTables(db: Inspection): Promise<string[]> {
  const problems: string[] = [];
  const batches = await db.rows<{ id: string; tree_size: number; stamps: number; proofs: number }>(
    `SELECT b.id, b.tree_size,
       (SELECT count(*) FROM stamp_proofs p JOIN stamps s ON s.id = p.stamp_id WHERE p.batch_id = b.id) AS stamps,
       (SELECT count(*) FROM stamp_proofs p WHERE p.batch_id = b.id) AS proofs
     FROM batches b`,
  );
  for (const b of batches) {
    if (b.stamps !== b.tree_size || b.proofs !== b.tree_size)
      problems.push(`batch ${b.id}: tree_size ${b.tree_size}, ${b.stamps} stamps, ${b.proofs} proofs`);
  }
  const [log] = await db.rows<{ n: number; top: number | null }>(
    "SELECT count(*) AS n, max(idx) AS top FROM log_entries",
  );
  if (log!.n !== (log!.top ?? -1) + 1)
    problems.push(`log has ${log!.n} entries but its last index is ${log!.top}`);
  const [unlogged] = await db.rows<{ n: number }>(
    `SELECT count(*) AS n FROM batches b WHERE b.log_index IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM log_entries e WHERE e.idx = b.log_index AND e.batch_id = b.id)`,
  );
  if (unlogged!.n > 0) problems.push(`${unlogged!.n} batches name a log entry that is not theirs`);
  return problems;
}

interface VaultRow {
  id: string;
  state: string;
  deadline: Time;
  heartbeat_count: number;
  released_at: Time;
  version: number;
}

/**
 * Each heartbeated vault kept every acknowledged heartbeat (count between acknowledged and sent,
 * deadline at least the acknowledged one), each counted heartbeat consumed exactly its receipt, and
 * the fee total is the sum of the receipts. A vault left to expire was expired at most once.
 */
export async function checkVaults(db: Inspection, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  const vaults = new Map(
    (
      await db.rows<VaultRow>("SELECT id, state, deadline, heartbeat_count, released_at, version FROM vaults")
    ).map((v) => [v.id, v]),
  );
  const receipts = await db.rows<{ used_for: string; amount: string }>(
    "SELECT used_for, amount FROM fee_receipts",
  );
  const paid = new Map<string, number>();
  for (const r of receipts) paid.set(r.used_for, (paid.get(r.used_for) ?? 0) + 1);
  for (const expected of ledger.vaults.values()) {
    const row = vaults.get(expected.id);
    if (!row) {
      problems.push(`vault ${expected.id} is gone`);
      continue;
    }
    const count = row.heartbeat_count;
    if (row.state !== "active") problems.push(`vault ${row.id} is ${row.state}`);
    if (count < expected.acked || count > expected.sent)
      problems.push(
        `vault ${row.id}: ${count} heartbeats, ${expected.acked} acknowledged of ${expected.sent} sent`,
      );
    if (ms(row.deadline) < ms(expected.deadline))
      problems.push(
        `vault ${row.id}: deadline ${new Date(row.deadline!).toISOString()} < ${expected.deadline}`,
      );
    const receiptsOf = paid.get(`heartbeat ${row.id}`) ?? 0;
    if (receiptsOf !== count)
      problems.push(`vault ${row.id}: ${count} heartbeats but ${receiptsOf} receipts`);
  }
  // The total is stored in 10^-18 units (migration 0007).
  const [totals] = await db.rows<{ units: string }>(
    "SELECT CAST(units AS TEXT) AS units FROM fee_totals WHERE currency = 'USDC'",
  );
  const sum = receipts.reduce((acc, r) => acc + atto(r.amount), 0n);
  if (BigInt(totals?.units ?? "0") !== sum)
    problems.push(`fee total ${totals?.units} units is not the receipts' sum`);
  for (const sleeper of ledger.sleepers.values()) {
    const row = vaults.get(sleeper.id);
    if (!row) problems.push(`vault ${sleeper.id} is gone`);
    else problems.push(...sleeperProblems(sleeper, row));
  }
  return problems;
}

/** Unrenewed: still active at its deadline, or expired once (released at the deadline, one version). */
function sleeperProblems(sleeper: SleeperRecord, row: VaultRow): string[] {
  if (ms(row.deadline) !== ms(sleeper.deadline)) return [`vault ${row.id}: its deadline moved`];
  if (row.state === "active")
    return row.version === 0 ? [] : [`vault ${row.id}: active at version ${row.version}`];
  if (row.state !== "expired") return [`vault ${row.id} is ${row.state}`];
  const problems: string[] = [];
  if (ms(row.released_at) !== ms(sleeper.deadline))
    problems.push(`vault ${row.id}: released_at is not its deadline`);
  if (row.version !== 1) problems.push(`vault ${row.id}: expired, but changed ${row.version} times`);
  return problems;
}

/** Waits until every acknowledged stamp is in a sealed batch, polling the database until `deadlineMs`. */
export async function waitUntilBatched(
  db: Inspection,
  ledger: Ledger,
  deadlineMs: number,
): Promise<string[]> {
  for (;;) {
    const pending = await db.rows<{ id: string }>("SELECT stamp_id AS id FROM unsealed_stamps");
    const waiting = pending.filter((r) => ledger.stamps.has(r.id)).map((r) => r.id);
    if (waiting.length === 0) return [];
    if (Date.now() > deadlineMs)
      return [`${waiting.length} acknowledged stamps never batched, e.g. ${waiting[0]}`];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Through the restarted server's API, for a sample of this iteration's stamps (the last
 * acknowledged before the kill, most at risk, and some at random): GET returns the same document,
 * it verifies, and its batch proof checks offline against the service and log keys.
 */
export async function checkStampsServed(
  rest: RestCalls,
  ledger: Ledger,
  iteration: number,
  serviceKey: string,
  random: SeededRandom,
): Promise<string[]> {
  const ours = ledger.stampsOf(iteration);
  const picked = ours.length === 0 ? [] : Array.from({ length: 5 }, () => random.pick(ours));
  const sample = new Set([...ours.slice(-5), ...picked]);
  const { verifier_key } = await rest.logInfo();
  const problems: string[] = [];
  for (const acked of sample) {
    problems.push(...(await servedProblems(rest, acked, serviceKey, verifier_key)));
  }
  return problems;
}

/** One stamp through the API: the same document, a valid verification, a proof that checks. */
async function servedProblems(
  rest: RestCalls,
  acked: AckedStamp,
  serviceKey: string,
  logKey: string,
): Promise<string[]> {
  try {
    const problems: string[] = [];
    const served = await rest.getStamp(acked.id);
    const differs = sameStamp(acked, jcs(served.stamp_json));
    if (differs) problems.push(`GET ${differs}`);
    const verdict = await rest.verifyStamp(acked.id);
    if (!verdict.is_valid)
      problems.push(`${acked.id}: POST verify says ${verdict.details.failures.join("; ")}`);
    const proof = await rest.proof(acked.id);
    const check = await verifyStampProof(served.stamp_json, proof, {
      trustedServiceKeys: [serviceKey],
      trustedLogKeys: [logKey],
    });
    if (!check.valid) problems.push(`${acked.id}: proof fails: ${check.failures.join("; ")}`);
    return problems;
  } catch (err) {
    return [`${acked.id}: ${(err as Error).message}`];
  }
}

/**
 * Through the API: heartbeated vaults are active with every acknowledged heartbeat. The ledger then
 * takes the server's count and deadline as settled, so the next kill is judged from there.
 */
export async function checkVaultsServed(rest: RestCalls, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  for (const vault of ledger.vaults.values()) {
    const served = await rest.getVault(vault.id).catch((err: Error) => err);
    if (served instanceof Error) {
      problems.push(`vault ${vault.id}: ${served.message}`);
      continue;
    }
    if (served.state !== "active") problems.push(`vault ${vault.id} is ${served.state}`);
    if (served.heartbeat_count < vault.acked || served.heartbeat_count > vault.sent)
      problems.push(
        `vault ${vault.id}: ${served.heartbeat_count} heartbeats served, ${vault.acked}..${vault.sent}`,
      );
    if (ms(served.deadline) < ms(vault.deadline))
      problems.push(`vault ${vault.id}: served deadline ${served.deadline} < ${vault.deadline}`);
    vault.acked = vault.sent = served.heartbeat_count;
    if (ms(served.deadline) > ms(vault.deadline)) vault.deadline = served.deadline;
  }
  return problems;
}
