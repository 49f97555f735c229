import { SingleBar } from "cli-progress";
import { type Command, Option } from "commander";

export interface ProgressFlags {
  /** true: `--progress`, false: `--no-progress`, undefined: when stderr is a terminal. */
  progress?: boolean;
  json?: boolean;
}

export function withProgressOptions(command: Command): Command {
  return command
    .option("--progress", "show progress on stderr even when it is not a terminal")
    .addOption(new Option("--no-progress", "never show progress"));
}

/** Progress goes to stderr, only to a terminal unless forced, and never with `--json`. */
export function progressShown(flags: ProgressFlags): boolean {
  if (flags.json) return false;
  return flags.progress ?? process.stderr.isTTY === true;
}

const MiB = 1024 * 1024;

function amount(value: number, unit: "bytes" | "items"): string {
  return unit === "bytes" ? `${(value / MiB).toFixed(1)} MiB` : String(value);
}

/**
 * A bar of bytes or items on stderr (cli-progress), or nothing when not shown. Off a terminal
 * (`--progress` into a pipe or file) it writes one line per second instead of redrawing.
 */
export class Progress {
  private readonly bar: SingleBar | undefined;
  private total = 0;
  private value = 0;
  private label = "";

  constructor(
    readonly shown: boolean,
    private readonly unit: "bytes" | "items",
  ) {
    this.bar = shown
      ? new SingleBar({
          stream: process.stderr,
          format: "{bar} {percentage}% | {done}/{size} | {label}",
          noTTYOutput: true,
          notTTYSchedule: 1000,
          barsize: 30,
        })
      : undefined;
  }

  start(total: number, label: string): void {
    this.total = total;
    this.value = 0;
    this.label = label;
    this.bar?.start(total, 0, this.payload());
  }

  /** Moves the bar to `value` (never beyond the total), optionally renaming what it counts. */
  update(value: number, label = this.label): void {
    this.value = Math.min(value, this.total);
    this.label = label;
    this.bar?.update(this.value, this.payload());
  }

  advance(by: number): void {
    this.update(this.value + by);
  }

  stop(): void {
    this.bar?.stop();
  }

  private payload() {
    return { done: amount(this.value, this.unit), size: amount(this.total, this.unit), label: this.label };
  }
}
