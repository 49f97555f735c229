import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { Socket } from "node:net";
import { delimiter, join } from "node:path";

/**
 * What the test suite needs from the machine besides node_modules, and how each is provided on a
 * Debian machine as root (docs/testing.md, "What the tests need"). Nothing here is skipped: a requirement that cannot be
 * provided stops the run with one line naming it and the command that installs it.
 */
export interface Requirement {
  /** What is missing, as the one line names it. */
  what: string;
  present(): boolean | Promise<boolean>;
  /** The command that provides it, run here as root and named in the line otherwise. */
  provide: string;
  /** Whether the test run may run `provide` itself: apt-get needs root. */
  needsRoot: boolean;
}

/** Where to look, injectable so that the "missing" paths are tested without uninstalling anything. */
export interface Machine {
  /** The directories of PATH. */
  path: string[];
  /** Debian's Chromium, where test/browser/browser.ts launches it. */
  chromium: string;
  /** Debian's python3-opentimestamps, which reads the `.ots` files stampd writes. */
  otsLibrary: string;
  /** Whether this process runs as root. */
  root: boolean;
  /** Runs a shell command, its output on the test run's stderr; throws when it fails. */
  run(command: string): void;
  /** Whether something listens on 127.0.0.1 at `port`. */
  listening(port: number): Promise<boolean>;
}

export const thisMachine: Machine = {
  path: (process.env.PATH ?? "").split(delimiter).filter(Boolean),
  chromium: "/usr/bin/chromium",
  otsLibrary: "/usr/lib/python3/dist-packages/opentimestamps/__init__.py",
  root: process.getuid?.() === 0,
  run: (command) =>
    execFileSync("bash", ["-c", command], { stdio: ["ignore", process.stderr, process.stderr] }),
  listening,
};

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const onPath = (machine: Machine, command: string) =>
  machine.path.some((dir) => isExecutable(join(dir, command)));

export function requirements(machine: Machine): Requirement[] {
  return [
    {
      what: `Chromium (${machine.chromium}, for the browser tests)`,
      present: () => isExecutable(machine.chromium),
      provide: "apt-get update && apt-get install -y chromium",
      needsRoot: true,
    },
    {
      what: "openssl (the RFC 3161 tests run a real openssl ts authority)",
      present: () => onPath(machine, "openssl"),
      provide: "apt-get update && apt-get install -y openssl",
      needsRoot: true,
    },
    {
      what: "python3-opentimestamps (the OpenTimestamps library reads the .ots files stampd exports)",
      present: () => existsSync(machine.otsLibrary),
      provide: "apt-get update && apt-get install -y python3-opentimestamps",
      needsRoot: true,
    },
    {
      what: "PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379",
      present: async () => (await machine.listening(5432)) && (await machine.listening(6379)),
      // Starts both where they are installed but stopped; installing them is the machine's setup.
      provide: "bash scripts/ensure-services.sh",
      needsRoot: false,
    },
  ];
}

/** A requirement that is missing and could not be provided, as one line. */
export class MissingRequirement extends Error {
  constructor(requirement: Requirement, why: string) {
    super(`test run stopped: ${requirement.what} ${why}; provide it with: ${requirement.provide}`);
    this.name = "MissingRequirement";
    // One line, as promised: the stack would only point here.
    this.stack = this.message;
  }
}

/**
 * Provides every requirement that is missing, in order, or throws a MissingRequirement for the
 * first that stays missing. `log` tells what is being installed (apt-get takes a while).
 */
export async function provideRequirements(machine: Machine, log: (line: string) => void): Promise<void> {
  for (const requirement of requirements(machine)) {
    if (await requirement.present()) continue;
    if (requirement.needsRoot && !machine.root)
      throw new MissingRequirement(requirement, "is missing (not root, so not installed)");
    log(`test run: ${requirement.what} is missing; running: ${requirement.provide}`);
    try {
      machine.run(requirement.provide);
    } catch {
      throw new MissingRequirement(requirement, `is missing and \`${requirement.provide}\` failed`);
    }
    if (!(await requirement.present()))
      throw new MissingRequirement(requirement, `is still missing after \`${requirement.provide}\``);
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.connect(port, "127.0.0.1");
  });
}
