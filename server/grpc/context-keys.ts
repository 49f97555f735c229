import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";

/** The TCP peer of a call, for client identification when no key is presented. */
export const peerAddressKey = createContextKey<string>("", { description: "peer address" });

/** Who is calling, resolved by the auth interceptor before any StampService handler runs. */
export const principalKey = createContextKey<Principal | undefined>(undefined, { description: "principal" });

/** The caller of a StampService call; only missing when the auth interceptor is not installed (a bug). */
export function principalOf(ctx: HandlerContext): Principal {
  const principal = ctx.values.get(principalKey);
  if (!principal) throw new Error("no principal: the gRPC auth interceptor is not installed");
  return principal;
}
