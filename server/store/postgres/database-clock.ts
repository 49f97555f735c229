import type pg from "pg";
import type { Clock } from "../../clock.js";

/** How often the offset to the database's clock is measured again (process clocks drift and get slewed). */
const resyncMs = 60_000;

/**
 * The database's time, read synchronously: `now()` is the process clock plus the offset to
 * PostgreSQL's `clock_timestamp()`, measured at start and every minute (the midpoint of the round
 * trip, so off by at most half of it). Every instance on one database then works from one clock for
 * deadlines, claims and event times, while domain code keeps its synchronous `Clock`. Claims still
 * take `now` from the caller rather than calling now() in SQL, so a vault's deadline is judged by
 * the same instant everywhere in one operation (a heartbeat's check and the expiry claim cannot
 * disagree), and tests drive every engine with a ManualClock.
 */
export class DatabaseClock implements Clock {
  private offsetMs = 0;
  private lastMs = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly pool: pg.Pool) {}

  /** Measures the offset once, then keeps it fresh until stop(). */
  static async start(pool: pg.Pool): Promise<DatabaseClock> {
    const clock = new DatabaseClock(pool);
    await clock.sync();
    // A failed measurement keeps the last offset; the store's own queries report the outage.
    clock.timer = setInterval(() => clock.sync().catch(() => {}), resyncMs);
    clock.timer.unref();
    return clock;
  }

  /** Never earlier than a time it already gave, even when a new measurement lowers the offset. */
  now(): Date {
    this.lastMs = Math.max(this.lastMs, Date.now() + this.offsetMs);
    return new Date(this.lastMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sync(): Promise<void> {
    const sent = Date.now();
    const { rows } = await this.pool.query<{ at: Date }>("SELECT clock_timestamp() AS at");
    const received = Date.now();
    this.offsetMs = rows[0]!.at.getTime() - (sent + received) / 2;
  }
}
