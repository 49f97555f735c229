import type { Command } from "commander";
import type { Schemas } from "../../sdk/src/index.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { table } from "../table.js";

function describe(identity: Schemas["IdentityResponse"] | Schemas["IdentityInfo"]): string {
  const rows = [
    ["identity", identity.identity_id],
    ["public key", identity.public_key],
    ["created", identity.created_at],
  ];
  if ("stamp_count" in identity) rows.push(["stamps signed", String(identity.stamp_count)]);
  return table(rows);
}

/**
 * `stampd identity`: the API has no listing of an account's identities (only `POST /identity`
 * and `GET /identity/{id}`), so there is no `list` here.
 */
export function registerIdentity(program: Command): void {
  const identity = program
    .command("identity")
    .description("signing identities: Ed25519 keys the service holds for your account");
  withRemoteOptions(
    identity
      .command("create")
      .description("create an identity of your account (POST /identity; needs --api-key)"),
  ).action(async (flags: RemoteFlags) => {
    const created = await clientFor(flags).identities.create();
    print(flags, created, () => describe(created));
  });
  withRemoteOptions(
    identity
      .command("show")
      .description("public information about an identity (GET /identity/{id})")
      .argument("<identity-id>", "the identity (16 hex characters)"),
  ).action(async (id: string, flags: RemoteFlags) => {
    const info = await clientFor(flags).identities.get(id);
    print(flags, info, () => describe(info));
  });
}
