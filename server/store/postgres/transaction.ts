import type pg from "pg";
import { isConnectionFailure, storeFailure } from "./guarded-pool.js";

/**
 * Runs `work` between BEGIN and COMMIT on `client`, ROLLBACK when it throws (rethrowing its error).
 * When even ROLLBACK fails it throws BrokenConnection, carrying the original error. After a
 * connection failure it does not try: the connection is gone or stalled, and a ROLLBACK would only
 * wait out another deadline (PostgreSQL rolls back a transaction whose session ended).
 */
export async function inTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  try {
    await client.query("BEGIN");
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    if (isConnectionFailure(err)) throw new BrokenConnection(err as Error, err);
    await client.query("ROLLBACK").catch((rollbackErr: Error) => {
      throw new BrokenConnection(rollbackErr, err);
    });
    throw err;
  }
}

/** The connection is in an unknown state and must not go back to the pool. */
class BrokenConnection extends Error {
  constructor(
    cause: Error,
    readonly original: unknown,
  ) {
    super(`connection lost during a transaction: ${cause.message}`, { cause });
  }
}

/**
 * One transaction on one pooled connection; a connection that failed is discarded. Failures reach
 * the caller as the store reports them (`store_unavailable` for a lost or stalled connection).
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await inTransaction(client, () => work(client));
  } catch (err) {
    if (!(err instanceof BrokenConnection)) throw storeFailure(pool, err);
    broken = true;
    throw storeFailure(pool, err.original);
  } finally {
    client.release(broken);
  }
}
