import type Database from "better-sqlite3";
import type {
  NewOutsideTimestamp,
  NewStampLogEntry,
  OutsideTimestamp,
  StampLogEntry,
  StampLogRepository,
} from "../../sigstore/stamp-log-repository.js";
import {
  entryWithOutsideTimestamp,
  type OutsideTimestampRow,
  outsideTimestampOf,
  type StampLogEntryRow,
  stampLogEntryOf,
} from "../rows/stamp-log-rows.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { SqliteCheckpoints } from "./sqlite-checkpoints.js";
import { preparedOnFirstUse } from "./statements.js";

/** The stamp log in SQLite; an append is one IMMEDIATE transaction, so indexes never clash. */
export class SqliteStampLogRepository extends SqliteCheckpoints implements StampLogRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    super(db, "stamp_log_checkpoints");
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async append(entries: readonly NewStampLogEntry[], now: Date): Promise<number> {
    const append = this.db.transaction((): number => {
      let size = (this.sql().size.get() as { n: number }).n;
      for (const entry of entries) {
        const inserted = this.sql().insert.run({
          idx: size,
          stamp_id: entry.stampId,
          body: bufferOf(entry.body),
          leaf_hash: bufferOf(entry.leafHash),
          appended_at: now.toISOString(),
        });
        size += inserted.changes;
      }
      return size;
    });
    return append.immediate();
  }

  async entryOf(stampId: string): Promise<StampLogEntry | undefined> {
    const row = this.sql().entryOf.get(stampId) as StampLogEntryRow | undefined;
    return row && stampLogEntryOf(row);
  }

  async saveOutsideTimestamp(
    stampId: string,
    token: NewOutsideTimestamp,
    now: Date,
  ): Promise<OutsideTimestamp> {
    const save = this.db.transaction((): OutsideTimestamp => {
      const signer = bufferOf(token.signerSha256);
      this.sql().insertChain.run(signer, token.chainPem, now.toISOString());
      this.sql().insertOutside.run(stampId, bufferOf(token.response), token.genTime.toISOString(), signer);
      return outsideTimestampOf(this.sql().outsideOf.get(stampId) as OutsideTimestampRow);
    });
    return save.immediate();
  }

  async outsideTsaChains(): Promise<string[]> {
    return (this.sql().chains.all() as { chain_pem: string }[]).map((r) => r.chain_pem);
  }

  async leafHashesFrom(from: number): Promise<Uint8Array[]> {
    return (this.sql().leafHashesFrom.all(from) as { leaf_hash: Buffer }[]).map((r) => bytesOf(r.leaf_hash));
  }
}

function prepare(db: Database.Database) {
  return {
    size: db.prepare("SELECT count(*) AS n FROM stamp_log_entries"),
    // A stamp another call appended first keeps its index; this one takes none.
    insert: db.prepare(
      `INSERT INTO stamp_log_entries (idx, stamp_id, body, leaf_hash, appended_at)
       VALUES (@idx, @stamp_id, @body, @leaf_hash, @appended_at) ON CONFLICT (stamp_id) DO NOTHING`,
    ),
    entryOf: db.prepare(`${entryWithOutsideTimestamp}?`),
    // The first token kept for a stamp stays its token; a chain is kept once per signer.
    insertChain: db.prepare(
      `INSERT INTO outside_tsa_chains (signer_sha256, chain_pem, first_used_at) VALUES (?, ?, ?)
       ON CONFLICT (signer_sha256) DO NOTHING`,
    ),
    insertOutside: db.prepare(
      `INSERT INTO stamp_log_outside_timestamps (stamp_id, response, gen_time, signer_sha256) VALUES (?, ?, ?, ?)
       ON CONFLICT (stamp_id) DO NOTHING`,
    ),
    outsideOf: db.prepare("SELECT response, gen_time FROM stamp_log_outside_timestamps WHERE stamp_id = ?"),
    chains: db.prepare("SELECT chain_pem FROM outside_tsa_chains ORDER BY first_used_at, signer_sha256"),
    leafHashesFrom: db.prepare("SELECT leaf_hash FROM stamp_log_entries WHERE idx >= ? ORDER BY idx"),
  };
}
