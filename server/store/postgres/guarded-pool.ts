import pg from "pg";
import { unavailable } from "../../errors.js";
import type { StoreAvailability } from "../store-availability.js";

/** The pool's deadlines and the wait it asks of clients when PostgreSQL does not answer. */
export interface PoolDeadlines {
  /** STORE_TIMEOUT_MS: connecting, waiting for a pooled connection, one query. */
  timeoutMs: number;
  /** STORE_RETRY_AFTER_SECONDS: the `Retry-After` of a `store_unavailable` answer. */
  retryAfterSeconds: number;
}

// Socket errors of a connection that failed or died (Node's codes).
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// SQLSTATEs of a server that is going away, not accepting yet, overloaded or read-only after a
// failover: class 08 (connection exception) is matched by prefix.
const serverStates = new Set([
  "57P01", // admin_shutdown: a restart or a failover ended the session
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or in recovery
  "53300", // too_many_connections
  "57014", // query_canceled: statement_timeout (STORE_TIMEOUT_MS) fired on the server
  "25P03", // idle_in_transaction_session_timeout
  "25006", // read_only_sql_transaction: connected to a standby that is not promoted yet
]);

// node-postgres raises these as plain Errors, without a code.
const driverMessages =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error and is not queryable|Connection terminated unexpectedly)/;

/** Whether `err` says PostgreSQL cannot be reached or did not answer in time (not a bad query). */
export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    (socketCodes.has(code) || serverStates.has(code) || code.startsWith("08"))
  ) {
    return true;
  }
  return driverMessages.test(err.message);
}

/**
 * The one place PostgreSQL's failures become the domain's: every query and checkout of the store
 * goes through this pool, with deadlines, and a connection failure becomes `store_unavailable`
 * (REST 503 + Retry-After, gRPC UNAVAILABLE, a WebSocket `unavailable` error) and is recorded in
 * the store's availability, which probes until PostgreSQL answers again.
 *
 * node-postgres emits `'error'` on a client whenever its socket dies, idle or checked out, and an
 * EventEmitter's `'error'` without a listener ends the process. The pool listens on idle clients;
 * `connect()` here listens on a checked-out one for as long as it is held, so a failover or a
 * restart of PostgreSQL mid-transaction fails that transaction and nothing else.
 */
export class GuardedPool extends pg.Pool {
  constructor(
    url: string,
    private readonly availability: StoreAvailability,
    private readonly deadlines: PoolDeadlines,
  ) {
    super({
      connectionString: url,
      // Connecting, and waiting for a free connection when all are busy (a stall holds them all).
      connectionTimeoutMillis: deadlines.timeoutMs,
      // The client's deadline: a stalled socket answers nothing, so the server's own cannot fire.
      query_timeout: deadlines.timeoutMs,
      // The server's: it stops work nobody waits for any more.
      statement_timeout: deadlines.timeoutMs,
      idle_in_transaction_session_timeout: deadlines.timeoutMs * 2,
      // A peer that vanished without a FIN (a failover, a cut link) is found by the kernel.
      keepAlive: true,
    });
    // An idle connection the server drops emits here: the pool has already discarded it, and the
    // next query reports any lasting outage.
    this.on("error", () => {});
    // Assigned rather than overridden, to keep pg.Pool's overloaded types for every caller.
    this.query = this.guardedQuery as pg.Pool["query"];
    this.connect = this.guardedConnect as pg.Pool["connect"];
  }

  private guardedQuery(...args: unknown[]): unknown {
    const result: unknown = Reflect.apply(pg.Pool.prototype.query, this, args);
    if (!(result instanceof Promise)) return result;
    return result.then(
      (value) => {
        this.availability.answered("store");
        return value;
      },
      (err) => {
        throw this.failure(err);
      },
    );
  }

  /** The callback form is pg-pool's own query(): its errors reach guardedQuery. */
  private guardedConnect(callback?: unknown): unknown {
    if (callback) return Reflect.apply(pg.Pool.prototype.connect, this, [callback]);
    const connected = Reflect.apply(pg.Pool.prototype.connect, this, []) as Promise<pg.PoolClient>;
    return connected.then(
      (client) => guard(client),
      (err) => {
        throw this.failure(err);
      },
    );
  }

  /** `err` as the domain sees it: `store_unavailable` for a connection failure, else unchanged. */
  failure(err: unknown): unknown {
    if (!isConnectionFailure(err)) return err;
    this.availability.failed("store", () => this.query("SELECT 1").then(() => {}));
    const wait = this.deadlines.retryAfterSeconds;
    return unavailable(`the store is unavailable; retry after ${wait} seconds`, "store_unavailable", wait);
  }
}

/**
 * Listens for `'error'` on a checked-out client until it is released: the query in flight fails
 * with the same error, so the listener has nothing else to do. A released client is back under
 * the pool's own listener (or discarded, when released with an error).
 */
function guard(client: pg.PoolClient): pg.PoolClient {
  const ignore = () => {};
  client.on("error", ignore);
  const release = client.release;
  client.release = (destroy?: boolean | Error) => {
    client.removeListener("error", ignore);
    client.release = release;
    return release(destroy);
  };
  return client;
}

/** A failure of a transaction on `pool` as the domain sees it (see GuardedPool.failure). */
export function storeFailure(pool: pg.Pool, err: unknown): unknown {
  return pool instanceof GuardedPool ? pool.failure(err) : err;
}
