import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/**
 * CPU seconds a process has spent so far, user and system (`/proc/<pid>/stat` utime + stime): on
 * a shared machine a steadier measure of a server's cost than its throughput.
 */
export function cpuSeconds(pid: number): number {
  return statCpu(readFileSync(`/proc/${pid}/stat`, "utf8")).seconds;
}

/**
 * CPU seconds spent so far by every live process whose command is `command` (e.g. `postgres`: the
 * server and all its backends, the other users' of the machine's PostgreSQL included).
 */
export function commandCpuSeconds(command: string): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = statCpu(readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (stat.command === command) total += stat.seconds;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** The machine's CPU time so far, busy and in all, over every core (`/proc/stat`), in seconds. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3]! + fields[4]!; // idle + iowait
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

function statCpu(stat: string): { command: string; seconds: number } {
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  return { command, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}
