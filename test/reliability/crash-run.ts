import { createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { formatPublicKey } from "../../server/keys/ed25519.js";
import { RestCalls, receiptMinter } from "../helpers/rest-calls.js";
import { createKeyWithCli, type LogLine, ServerProcess } from "../helpers/server-process.js";
import {
  checkProofTables,
  checkStampsServed,
  checkStampsStored,
  checkVaults,
  checkVaultsServed,
  waitUntilBatched,
} from "./crash-checks.js";
import type { CrashStore } from "./crash-database.js";
import { Ledger } from "./crash-ledger.js";
import { CrashLoad } from "./crash-load.js";
import { SeededRandom } from "./seeded-random.js";

const heartbeatedVaults = 8;
const sleepingVaults = 5;
/** The shortest heartbeat_deadline the spec allows: the sleepers fall due during the run. */
const sleeperDeadlineSeconds = 60;
/** Stamps acknowledged before a restart must be batched within this long after it. */
const batchingDeadlineMs = 20_000;

/** How many vaults log lines say were expired ("vault scheduler pass" lines). */
const expiredIn = (logs: LogLine[]) =>
  logs.filter((l) => l.msg === "vault scheduler pass").reduce((n, l) => n + Number(l.expired ?? 0), 0);

/**
 * One store's crash run: the real server in a child process, killed with SIGKILL at a random moment
 * of a stamping and heartbeat load, checked while down (its database as the kill left it) and
 * after a restart (through its API), again and again on the same data.
 */
export class CrashRun {
  readonly ledger = new Ledger();
  private server!: ServerProcess;
  private rest!: RestCalls;
  private key!: string;
  private serviceKey!: string;
  private mintReceipt!: () => string;
  /** Vault expiries the servers logged, over every start: each sleeper must be counted once. */
  private expiredLogged = 0;
  private sleepersExpired = false;
  private longestIterationMs = 0;
  /** Log lines of the current server already counted. */
  private logsCounted = 0;

  /** When to kill: its own sequence, so a seed replays the kill moments whatever the load does. */
  private readonly kills: SeededRandom;
  /** The load's choices (document sizes, vaults, samples), drawn in whatever order calls finish. */
  private readonly choices: SeededRandom;

  constructor(
    private readonly store: CrashStore,
    seed: number,
  ) {
    this.kills = new SeededRandom(seed);
    this.choices = new SeededRandom(seed ^ 0x9e3779b9);
  }

  private get env(): Record<string, string> {
    return {
      ...this.store.env,
      RATE_LIMIT_ENABLED: "false",
      BATCH_INTERVAL_MS: "200",
      VAULT_SCHEDULER_INTERVAL_MS: "200",
    };
  }

  /** Issues the key with the CLI, starts the server, creates the vaults. */
  async setUp(): Promise<void> {
    this.key = await createKeyWithCli(this.env);
    await this.start();
    const pem = readFileSync(join(this.store.dataDir, "keys", "service-ed25519.pem"));
    this.serviceKey = formatPublicKey(createPublicKey(createPrivateKey(pem)));
    this.mintReceipt = receiptMinter(this.store.dataDir);
    for (let i = 0; i < heartbeatedVaults; i++) {
      const { id, deadline } = await this.rest.createVault(3600);
      this.ledger.vaults.set(id, { id, acked: 0, sent: 0, deadline });
    }
    for (let i = 0; i < sleepingVaults; i++) {
      const { id, deadline } = await this.rest.createVault(sleeperDeadlineSeconds);
      this.ledger.sleepers.set(id, { id, deadline });
    }
  }

  /** One kill and restart; returns every problem found (none: the iteration passed). */
  async iteration(index: number, last: boolean): Promise<string[]> {
    const began = Date.now();
    const target = { rest: this.rest, grpcPort: this.server.grpcPort, key: this.key };
    const load = new CrashLoad(
      { ...target, mintReceipt: this.mintReceipt },
      this.ledger,
      index,
      this.choices,
    );
    await sleep(this.kills.int(200, 1500));
    const killedAt = Date.now();
    const lanesDone = load.killing();
    const exit = await this.server.stop("SIGKILL");
    await lanesDone;
    const problems = [...load.failures];
    if (exit.signal !== "SIGKILL") problems.push(`the server was not killed but ended with ${exit.code}`);
    problems.push(...(await this.checkWhileDown(index)));
    problems.push(...(await this.staySleepingPastDeadlines(killedAt, last)));
    await this.start();
    problems.push(...(await this.checkAfterRestart(index)));
    this.longestIterationMs = Math.max(this.longestIterationMs, Date.now() - began);
    return problems;
  }

  /** Stops the last server gracefully; every sleeper must have been expired exactly once. */
  async finish(): Promise<string[]> {
    const exit = await this.server.stop("SIGTERM");
    const problems = exit.code === 0 ? [] : [`the last server exited with ${exit.code ?? exit.signal}`];
    problems.push(...(await this.checkWhileDown(-1)));
    if (this.expiredLogged !== this.ledger.sleepers.size)
      problems.push(`${this.expiredLogged} expiries logged for ${this.ledger.sleepers.size} lapsed vaults`);
    return problems;
  }

  async close(): Promise<void> {
    await this.server?.stop("SIGKILL");
  }

  private async start(): Promise<void> {
    this.server = await ServerProcess.start(this.env);
    this.logsCounted = 0;
    await this.server.untilAnswering();
    this.rest = this.rest?.withBase(this.server.baseUrl) ?? new RestCalls(this.server.baseUrl, this.key);
  }

  private countExpiries(): void {
    this.expiredLogged += expiredIn(this.server.logs.slice(this.logsCounted));
    this.logsCounted = this.server.logs.length;
  }

  /** The database exactly as the kill left it: structure, stamps, proofs, vaults. */
  private async checkWhileDown(index: number): Promise<string[]> {
    this.countExpiries();
    const db = await this.store.inspect();
    try {
      return [
        ...(await db.structuralProblems()),
        ...(await checkStampsStored(db, this.ledger, index, this.serviceKey)),
        ...(await checkProofTables(db)),
        ...(await checkVaults(db, this.ledger)),
      ];
    } finally {
      await db.close();
    }
  }

  /**
   * Keeps the server down until the sleepers' deadlines have passed, once, when they would
   * otherwise fall due within the next iterations (or in the last one), so that they lapse while
   * nothing runs and the next start must expire them.
   */
  private async staySleepingPastDeadlines(killedAt: number, last: boolean): Promise<string[]> {
    if (this.sleepersExpired) return [];
    const deadlines = [...this.ledger.sleepers.values()].map((s) => Date.parse(s.deadline));
    const first = Math.min(...deadlines);
    // An iteration may take several times the longest so far on a busy machine.
    const lookahead = 3 * Math.max(this.longestIterationMs, 10_000);
    if (!last && Date.now() + lookahead < first) return [];
    this.sleepersExpired = true;
    if (killedAt >= first)
      return ["the lapsing vaults fell due while the server was up: the run is too slow"];
    const until = Math.max(...deadlines) + 250;
    while (Date.now() < until) await sleep(Math.min(500, until - Date.now()));
    return [];
  }

  private async checkAfterRestart(index: number): Promise<string[]> {
    this.countExpiries();
    const db = await this.store.inspect();
    const problems = await waitUntilBatched(db, this.ledger, Date.now() + batchingDeadlineMs).finally(() =>
      db.close(),
    );
    problems.push(...(await checkStampsServed(this.rest, this.ledger, index, this.serviceKey, this.choices)));
    problems.push(...(await checkVaultsServed(this.rest, this.ledger)));
    if (this.sleepersExpired) {
      for (const { id } of this.ledger.sleepers.values()) {
        const { state } = await this.rest.getVault(id);
        if (state !== "expired")
          problems.push(`vault ${id} lapsed while the server was down but is ${state}`);
      }
    }
    return problems;
  }
}
