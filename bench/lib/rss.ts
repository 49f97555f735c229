// Resident memory of another process, from /proc (Linux only).
import { readFileSync, writeFileSync } from "node:fs";

/** VmRSS (now) and VmHWM (the peak since start or the last reset), in bytes. */
export function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** Resets VmHWM to the current RSS (proc(5), clear_refs value 5); false where that is not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * Watches a process's peak RSS while `work` runs: samples every 10 ms, and the kernel's own
 * high-water mark (reset first, so a spike between two samples is not missed) where it can be reset.
 */
export async function peakRssDuring<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; peak: number }> {
  const exact = resetPeak(pid);
  let peak = rssOf(pid).rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid).rss);
  }, 10);
  try {
    const result = await work();
    return { result, peak: exact ? Math.max(peak, rssOf(pid).hwm) : peak };
  } finally {
    clearInterval(timer);
  }
}

export const MiB = 1024 * 1024;

export function mib(bytes: number): number {
  return Number((bytes / MiB).toFixed(1));
}
