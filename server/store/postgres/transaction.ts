import type pg from "pg";

/**
 * Runs `work` between BEGIN and COMMIT on `client`, ROLLBACK when it throws (rethrowing its error).
 * When even ROLLBACK fails it throws BrokenConnection, carrying the original error.
 */
export async function inTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch((rollbackErr: Error) => {
      throw new BrokenConnection(rollbackErr, err);
    });
    throw err;
  }
}

/** ROLLBACK failed: the connection is in an unknown state and must not go back to the pool. */
class BrokenConnection extends Error {
  constructor(
    cause: Error,
    readonly original: unknown,
  ) {
    super(`connection lost during a transaction: ${cause.message}`, { cause });
  }
}

/** One transaction on one pooled connection; a connection that could not roll back is discarded. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await inTransaction(client, () => work(client));
  } catch (err) {
    if (!(err instanceof BrokenConnection)) throw err;
    broken = true;
    throw err.original;
  } finally {
    client.release(broken);
  }
}
