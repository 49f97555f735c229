import { type Command, Option } from "commander";
import { ApiKeys } from "../../server/auth/api-keys.js";
import type { ApiKeyInfo } from "../../server/auth/auth-repository.js";
import { type KeyTier, keyTiers } from "../../server/auth/principal.js";
import { systemClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import { openStore } from "../../server/store/open.js";
import { requireExisting, storeTarget } from "../store-target.js";
import { table } from "../table.js";
import { registerKeyRing, revokeRingKey } from "./key-ring.js";

interface CreateFlags {
  tier: KeyTier;
  account?: string;
  name?: string;
  test?: boolean;
  json?: boolean;
  init?: boolean;
}

/**
 * Opens the server's store (DATA_DIR / DATABASE_URL), runs `fn`, and always closes it. A store
 * that does not exist yet is created only with `init`; `wrote` names the store on stderr.
 */
async function withKeys<T>(
  fn: (keys: ApiKeys) => Promise<T>,
  opts: { init?: boolean; wrote?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const target = await storeTarget(config);
  requireExisting(`stampd store at ${target.description}`, target.exists, opts.init, config);
  const store = await openStore(config);
  try {
    await store.migrate();
    const result = await fn(new ApiKeys(store.auth, systemClock));
    if (opts.wrote) console.error(`stampd: wrote to the ${target.description}`);
    return result;
  } finally {
    await store.close();
  }
}

/** A key as the CLI shows it, snake_case like the REST API; never the key or its hash. */
function describe(info: ApiKeyInfo) {
  return {
    id: info.id,
    account_id: info.accountId,
    tier: info.tier,
    environment: info.environment,
    name: info.name,
    created_at: info.createdAt.toISOString(),
    revoked_at: info.revokedAt?.toISOString() ?? null,
  };
}

async function create(flags: CreateFlags): Promise<void> {
  const issued = await withKeys(
    (keys) =>
      keys.create({
        tier: flags.tier,
        accountId: flags.account,
        name: flags.name,
        environment: flags.test ? "test" : "live",
      }),
    { init: flags.init, wrote: true },
  );
  if (flags.json) {
    console.log(JSON.stringify({ key: issued.key, ...describe(issued) }, null, 2));
    return;
  }
  const { id, account_id, tier, environment } = describe(issued);
  console.log(
    table([
      ["key", issued.key],
      ["id", id],
      ["account", account_id],
      ["tier", tier],
      ["environment", environment],
    ]),
  );
  console.error("The key is shown only this once and stored only as a hash: keep it now.");
}

async function list(flags: { json?: boolean }): Promise<void> {
  const shown = (await withKeys((keys) => keys.list())).map(describe);
  if (flags.json) {
    console.log(JSON.stringify(shown, null, 2));
    return;
  }
  const header = ["ID", "ACCOUNT", "TIER", "ENV", "NAME", "CREATED", "REVOKED"];
  const rows = shown.map((k) => [
    k.id,
    k.account_id,
    k.tier,
    k.environment,
    k.name ?? "-",
    k.created_at,
    k.revoked_at ?? "-",
  ]);
  console.log(table([header, ...rows]));
}

async function revoke(keyId: string, flags: { kind?: string; reason?: string; at?: string }): Promise<void> {
  if (flags.kind)
    return revokeRingKey(keyId, { kind: flags.kind, reason: flags.reason ?? "revoked", at: flags.at });
  const outcome = await withKeys((keys) => keys.revoke(keyId), { wrote: true });
  console.log(outcome === "revoked" ? `revoked ${keyId}` : `${keyId} was already revoked`);
}

export function registerKeys(program: Command): void {
  const keys = program
    .command("keys")
    .description("issue, list and revoke API keys; list, rotate and revoke the deployment's signing keys");
  keys
    .command("create")
    .description("issue a key; it is printed once and stored only as a hash")
    .addOption(
      new Option("--tier <tier>", "rate-limit tier of the key").choices(keyTiers).makeOptionMandatory(),
    )
    .option("--account <id>", "add the key to this existing account (default: a new account)")
    .option("--name <label>", "a label to recognise the key by in listings")
    .option("--test", "issue an svc_test_ key instead of svc_live_")
    .option("--init", "create the store if DATA_DIR / DATABASE_URL names none yet")
    .option("--json", "print JSON")
    .action(create);
  keys
    .command("list")
    .description("list keys (never the keys themselves)")
    .option("--json", "print JSON")
    .action(list);
  keys
    .command("revoke")
    .description("revoke an API key by its id (key_…), or with --kind a signing key of the key ring")
    .argument("<key-id>")
    .option(
      "--kind <kind>",
      "a key ring key: service, log or tsa; in one transaction it is revoked in every role its key material holds, and an active one handed to a fresh key",
    )
    .option("--reason <text>", "with --kind: why, published in GET /keys")
    .option("--at <date-time>", "with --kind: from when its signatures are not trusted (default: now)")
    .action(revoke);
  registerKeyRing(keys);
}
