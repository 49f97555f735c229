import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";

/** docs/sigstore.md as a reader finds it. */
export const sigstoreDoc = (): string =>
  readFileSync(new URL("../../docs/sigstore.md", import.meta.url), "utf8");

/** The text of the `## <heading>` section of `markdown`, up to the next `## ` heading. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of `text` in `language`, in order, without their fences. */
export function codeBlocks(text: string, language: string): string[] {
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  return [...text.matchAll(fence)].map((m) => m[1]!);
}

/** The one match of `pattern`'s first group in `text`, failing when the doc no longer says it. */
export function saidOnce(text: string, pattern: RegExp): string {
  const found = [...text.matchAll(new RegExp(pattern, `${pattern.flags.replace("g", "")}g`))];
  if (found.length !== 1) throw new Error(`${pattern} matches ${found.length} times, not once`);
  return found[0]![1]!;
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs a program in `cwd` without blocking the event loop (the service under test runs in this
 * process), resolving with its exit code and output whatever the code.
 */
export function run(file: string, args: string[], cwd: string, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd, maxBuffer: 1 << 24 }, (error, out, err) =>
      resolve({ code: !error ? 0 : typeof error.code === "number" ? error.code : -1, out, err }),
    );
    child.stdin?.end(input ?? "");
  });
}
