import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "../cli/run-stampd.js";
import { type RunningService, startService } from "../helpers/service.js";
import { publishedTrust, sigstoreVerify } from "./sigstore-js.js";

let svc: RunningService;
const dir = mkdtempSync(join(tmpdir(), "stampd-sigstore-cli-"));

beforeAll(async () => {
  // Batches seal on their own here: the CLI waits for the stamp to be confirmed.
  svc = await startService({ RATE_LIMIT_ENABLED: "false", BATCH_INTERVAL_MS: "200" });
});
afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(
  "stampd stamp --sigstore-out saves a Sigstore bundle sigstore-js verifies for the file",
  async () => {
    const document = "a contract stamped from the command line\n";
    const file = join(dir, "contract.txt");
    writeFileSync(file, document);
    const out = join(dir, "bundles");
    const run = await runStampd(["stamp", file, "--sigstore-out", out, ...serverArgs(svc)]);
    expect(run, run.err).toMatchObject({ code: 0 });
    expect(run.out).toContain("confirmed");
    const bundle = JSON.parse(readFileSync(join(out, "contract.txt.sigstore.json"), "utf8"));
    const trust = await publishedTrust(svc.baseUrl);
    await expect(sigstoreVerify(bundle, document, trust)).resolves.toBeUndefined();
    await expect(sigstoreVerify(bundle, `${document}!`, trust)).rejects.toThrow();
  },
  SPAWNS_TIMEOUT,
);

it(
  "stampd verify checks a Sigstore bundle for its document with sigstore-js: files of the trust anchors, or --online",
  async () => {
    const document = "a deed verified from the command line\n";
    const file = join(dir, "deed.txt");
    writeFileSync(file, document);
    const saved = join(dir, "deed.sigstore.json");
    expect((await runStampd(["stamp", file, "--sigstore-out", saved, ...serverArgs(svc)])).code).toBe(0);
    const trust = await publishedTrust(svc.baseUrl);
    const root = join(dir, "trusted_root.json");
    const keys = join(dir, "keys.json");
    writeFileSync(root, JSON.stringify(trust.root));
    writeFileSync(keys, JSON.stringify({ keys: trust.ring }));
    const pinned = ["--trusted-root", root, "--key-ring", keys];
    const valid = await runStampd(["verify", saved, file, ...pinned]);
    expect(valid, valid.err).toMatchObject({ code: 0 });
    expect(valid.out).toMatch(/^valid: the Sigstore bundle holds for the document/);
    const other = join(dir, "other.txt");
    writeFileSync(other, `${document}!`);
    const invalid = await runStampd(["verify", saved, other, ...pinned]);
    expect(invalid.code).toBe(1);
    expect(invalid.out).toMatch(/^invalid: .*signature verification failed/);
    const online = await runStampd(["verify", saved, file, "--online", ...serverArgs(svc)]);
    expect(online, online.err).toMatchObject({ code: 0 });
    const unpinned = await runStampd(["verify", saved, file]);
    expect(unpinned.code).toBe(2);
    expect(unpinned.err).toMatch(/--trusted-root .* and --key-ring .*, or --online/);
  },
  SPAWNS_TIMEOUT,
);

it(
  "refuses --sigstore-out with --hash-only (gRPC stamping does not wait for a batch)",
  async () => {
    const run = await runStampd([
      "stamp",
      join(dir, "x"),
      "--hash-only",
      "--sigstore-out",
      dir,
      ...serverArgs(svc),
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--hash-only stamps through gRPC, which takes no --sigstore-out/);
  },
  SPAWNS_TIMEOUT,
);
