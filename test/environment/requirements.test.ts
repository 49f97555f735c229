import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Machine, MissingRequirement, provideRequirements } from "./requirements.js";

// The machine is injected: a temporary folder stands in for PATH and for /usr/bin/chromium, so
// "missing" is tested without uninstalling anything, and "installing" only writes that folder.
let dir: string;
let commands: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stampd-requirements-"));
  commands = [];
  writeFileSync(join(dir, "opentimestamps.py"), "");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const executable = (name: string) => {
  writeFileSync(join(dir, name), "#!/bin/sh\n");
  chmodSync(join(dir, name), 0o755);
};

function machine(overrides: Partial<Machine> = {}): Machine {
  return {
    path: [dir],
    chromium: join(dir, "chromium"),
    // Present unless a test removes it: the cases below are about the others.
    otsLibrary: join(dir, "opentimestamps.py"),
    root: false,
    run: (command) => commands.push(command),
    listening: async () => true,
    ...overrides,
  };
}

const failure = async (m: Machine): Promise<string> => {
  const error = await provideRequirements(m, () => {}).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(MissingRequirement);
  const { message, stack } = error as Error;
  expect(message.split("\n")).toHaveLength(1);
  expect(stack).toBe(message);
  return message;
};

describe("the test run's requirements", () => {
  it("all present: nothing is run", async () => {
    executable("chromium");
    executable("openssl");
    await provideRequirements(machine(), () => {});
    expect(commands).toEqual([]);
  });

  it("Chromium missing, not root: one line naming it and apt-get install -y chromium, nothing run", async () => {
    executable("openssl");
    const line = await failure(machine());
    expect(line).toContain(`Chromium (${join(dir, "chromium")}`);
    expect(line).toContain("apt-get update && apt-get install -y chromium");
    expect(commands).toEqual([]);
  });

  it("Chromium missing, root: installed with Debian's package, then the run goes on", async () => {
    executable("openssl");
    const logged: string[] = [];
    const m = machine({
      root: true,
      run: (command) => {
        commands.push(command);
        if (command.includes("install -y chromium")) executable("chromium");
      },
    });
    await provideRequirements(m, (line) => logged.push(line));
    expect(commands).toEqual(["apt-get update && apt-get install -y chromium"]);
    expect(logged).toHaveLength(1);
  });

  it("root, but the install fails: one line naming the command", async () => {
    executable("openssl");
    const m = machine({
      root: true,
      run: () => {
        throw new Error("E: Unable to locate package chromium");
      },
    });
    expect(await failure(m)).toContain("`apt-get update && apt-get install -y chromium` failed");
  });

  it("root, the install succeeds but leaves no executable: one line, not a skipped suite", async () => {
    executable("openssl");
    expect(await failure(machine({ root: true }))).toContain("is still missing after");
  });

  it("openssl missing from PATH: one line naming apt-get install -y openssl", async () => {
    executable("chromium");
    const line = await failure(machine());
    expect(line).toContain("openssl");
    expect(line).toContain("apt-get install -y openssl");
  });

  it("python3-opentimestamps missing, root: installed with Debian's package", async () => {
    executable("chromium");
    executable("openssl");
    rmSync(join(dir, "opentimestamps.py"));
    const m = machine({
      root: true,
      run: (command) => {
        commands.push(command);
        if (command.includes("install -y python3-opentimestamps"))
          writeFileSync(join(dir, "opentimestamps.py"), "");
      },
    });
    await provideRequirements(m, () => {});
    expect(commands).toEqual(["apt-get update && apt-get install -y python3-opentimestamps"]);
  });

  it("PostgreSQL or Redis stopped: started with scripts/ensure-services.sh, also when not root", async () => {
    executable("chromium");
    executable("openssl");
    let started = false;
    const m = machine({
      listening: async (port) => port !== 5432 || started,
      run: (command) => {
        commands.push(command);
        started = true;
      },
    });
    await provideRequirements(m, () => {});
    expect(commands).toEqual(["bash scripts/ensure-services.sh"]);
    const down = machine({ listening: async (port) => port !== 6379 });
    expect(await failure(down)).toContain("Redis on 127.0.0.1:6379");
  });
});
