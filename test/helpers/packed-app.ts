import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));

/**
 * Typechecks `files` of an app that installed the packed SDK as its users do: strict, NodeNext,
 * no @types/node and no skipLibCheck, so the published .d.ts files are checked too. Throws with
 * tsc's output when they do not compile.
 */
export function typecheckApp(app: string, files: string[], options: Record<string, unknown> = {}): void {
  const compilerOptions = {
    module: "nodenext",
    target: "es2022",
    lib: ["es2023", "dom"],
    strict: true,
    noEmit: true,
    types: [],
    ...options,
  };
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
  execFileSync(process.execPath, [tsc, "-p", app], { encoding: "utf8", stdio: "pipe" });
}
