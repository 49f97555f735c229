import type { AppContext } from "../context.js";
import type { StampServices } from "../stamps/services.js";
import { StampSearch } from "../stamps/stamp-search.js";
import type { Handlers } from "./handler.js";
import { hashHandlers } from "./hash-handlers.js";
import { identityHandlers } from "./identity-handlers.js";
import { presetHandlers } from "./preset-handlers.js";
import { stampHandlers } from "./stamp-handlers.js";
import { verifyHandlers } from "./verify-handlers.js";

/** The REST operations of stamping: stamps, verification, identities, presets and hashing. */
export function stampingHandlers(ctx: AppContext, services: StampServices): Handlers {
  return {
    ...stampHandlers(ctx, services.stamps, new StampSearch(ctx.store.stamps)),
    ...verifyHandlers(ctx, services.stamps),
    ...identityHandlers(services.identities),
    ...presetHandlers(),
    ...hashHandlers(ctx),
  };
}
