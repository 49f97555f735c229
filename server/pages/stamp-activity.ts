import type { Clock } from "../clock.js";
import type { EventBus } from "../events/bus.js";

const MINUTE_MS = 60_000;
export const MINUTES_SHOWN = 60;

export interface StampActivitySnapshot {
  /** Start of the oldest minute of `perMinute`. */
  from: Date;
  /** Stamps created in each of the last MINUTES_SHOWN minutes, oldest first, the current one last. */
  perMinute: number[];
}

/**
 * Stamps created per minute over the last hour, counted from the event bus since this process
 * started (the store's total is its own counter, StampRepository.count); with a shared bus (Redis)
 * every instance's stamps are counted.
 */
export class StampActivity {
  /** Count per minute number (ms since the epoch / 60 000); only the last hour is kept. */
  private readonly minutes = new Map<number, number>();

  constructor(
    events: EventBus,
    private readonly clock: Clock,
  ) {
    events.subscribe((event) => {
      if (event.type === "stamp_created") this.record(new Date(event.data.timestamp));
    });
  }

  snapshot(): StampActivitySnapshot {
    const last = minuteOf(this.clock.now());
    const first = last - MINUTES_SHOWN + 1;
    this.forgetBefore(first);
    const perMinute = Array.from({ length: MINUTES_SHOWN }, (_, i) => this.minutes.get(first + i) ?? 0);
    return { from: new Date(first * MINUTE_MS), perMinute };
  }

  private record(createdAt: Date): void {
    const minute = minuteOf(createdAt);
    this.minutes.set(minute, (this.minutes.get(minute) ?? 0) + 1);
    this.forgetBefore(minuteOf(this.clock.now()) - MINUTES_SHOWN + 1);
  }

  private forgetBefore(minute: number): void {
    for (const key of this.minutes.keys()) if (key < minute) this.minutes.delete(key);
  }
}

const minuteOf = (date: Date) => Math.floor(date.getTime() / MINUTE_MS);
