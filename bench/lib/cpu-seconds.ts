import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/**
 * CPU seconds a process has spent so far, user and system (`/proc/<pid>/stat` utime + stime): on
 * a shared machine a steadier measure of a server's cost than its throughput.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
