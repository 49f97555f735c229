import type { AppContext } from "../../context.js";
import type { StampDomain } from "../../stamps/domain.js";
import type { Handlers } from "./handler.js";
import { hashHandlers } from "./hash-handlers.js";
import { identityHandlers } from "./identity-handlers.js";
import { presetHandlers } from "./preset-handlers.js";
import { stampHandlers } from "./stamp-handlers.js";
import { verifyHandlers } from "./verify-handlers.js";

/** The REST operations of stamping: stamps, verification, identities, presets and hashing. */
export function stampingHandlers(ctx: AppContext, stamps: StampDomain): Handlers {
  return {
    ...stampHandlers(ctx, stamps.service, stamps.search),
    ...verifyHandlers(ctx, stamps.service),
    ...identityHandlers(stamps.identities),
    ...presetHandlers(),
    ...hashHandlers(ctx),
  };
}
