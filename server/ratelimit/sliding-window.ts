import { type Algorithm, ceilMs, EPS, reportedOutcome, type Step } from "./algorithm.js";
import type { Lane } from "./tiers.js";

/** Slots per window: a minute counts in 2 s slots, an hour in 2 min slots. */
export const SLOTS = 30;

/**
 * The sliding window (docs/design.md, Rate limiting): the cost of the requests let through in the rolling period must stay within
 * `limit`, with no burst allowance on top. Each lane keeps its counts in at most SLOTS + 1 slots
 * (bounded memory whatever the request rate). The oldest slot, which straddles the window's start,
 * counts in full until all of it has left: so no rolling period ever holds more than `limit`, and
 * a request may wait up to one slot longer than an exact log would make it.
 * State per lane: `[slot, count, slot, count, ...]`, oldest first, slot = floor(ms / slotMs).
 */
export const slidingWindow: Algorithm<number[][]> = {
  name: "sliding_window",
  step(state, lanes, cost, nowMs): Step<number[][]> {
    const windows = lanes.map((lane, i) => open(lane, state?.[i] ?? [], nowMs, cost));
    const allowed = windows.every((w) => w.used + w.need <= w.lane.limit + EPS);
    // A look without a charge (cost 0) must not open a slot: an empty slot would still set the reset.
    if (allowed && cost > 0) for (const w of windows) add(w.slots, w.current, w.need);
    let waitMs = 0;
    if (!allowed) for (const w of windows) waitMs = Math.max(waitMs, waitFor(w, nowMs));
    const views = windows.map((w) => ({
      remaining: Math.max(0, Math.floor(w.lane.limit - sum(w.slots) + EPS)),
      resetMs: w.slots.length ? ceilMs(expiry(w, w.slots.at(-2)!) - nowMs) : 0,
    }));
    return { state: windows.map((w) => w.slots), outcome: reportedOutcome(allowed, views, waitMs) };
  },
};

interface Window {
  lane: Lane;
  slotMs: number;
  current: number;
  slots: number[];
  used: number;
  need: number;
}

/** The lane's slots still counted at `nowMs`, dropping those wholly out of the window. */
function open(lane: Lane, stored: number[], nowMs: number, cost: number): Window {
  const slotMs = lane.periodMs / SLOTS;
  const current = Math.floor(nowMs / slotMs);
  const first = stored.findIndex((v, i) => i % 2 === 0 && v >= current - SLOTS);
  const slots = first < 0 ? [] : stored.slice(first);
  return { lane, slotMs, current, slots, used: sum(slots), need: Math.min(cost, lane.limit) };
}

function add(slots: number[], slot: number, cost: number): void {
  // A clock that stepped back still charges the newest slot, keeping the list in order.
  if (slots.length && slots.at(-2)! >= slot) slots[slots.length - 1]! += cost;
  else slots.push(slot, cost);
}

function sum(slots: number[]): number {
  let total = 0;
  for (let i = 1; i < slots.length; i += 2) total += slots[i]!;
  return total;
}

/** When a slot stops counting: once the window's start has passed its end. */
function expiry(w: Window, slot: number): number {
  return (slot + SLOTS + 1) * w.slotMs;
}

/** Milliseconds until enough of the oldest slots have expired for this request to fit. */
function waitFor(w: Window, nowMs: number): number {
  let used = w.used;
  for (let i = 0; i < w.slots.length && used + w.need > w.lane.limit + EPS; i += 2) {
    used -= w.slots[i + 1]!;
    if (used + w.need <= w.lane.limit + EPS) return expiry(w, w.slots[i]!) - nowMs;
  }
  return 0;
}
