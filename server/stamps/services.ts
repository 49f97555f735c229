import { anchorAvailability } from "../anchors/availability.js";
import type { AppContext } from "../context.js";
import { IdentityService } from "../identities/identity-service.js";
import { StampEvidenceSource } from "../proofs/stamp-evidence.js";
import type { StampFingerprinter } from "./fingerprinter.js";
import { StampService } from "./stamp-service.js";

export interface StampServices {
  identities: IdentityService;
  stamps: StampService;
}

/** The stamp and identity services over the application context, for every transport. */
export function stampServices(
  ctx: Pick<AppContext, "config" | "store" | "keys" | "clock" | "events">,
  fingerprinter?: StampFingerprinter,
): StampServices {
  const identities = new IdentityService(ctx.store.identities, ctx.store.stamps, ctx.keys.atRest, ctx.clock);
  const stamps = new StampService({
    stamps: ctx.store.stamps,
    identities,
    signing: ctx.keys.signing,
    clock: ctx.clock,
    events: ctx.events,
    fingerprinter,
    evidence: new StampEvidenceSource(
      ctx.store.proofs,
      ctx.store.anchors,
      ctx.store.log,
      anchorAvailability(ctx.config),
    ),
  });
  return { identities, stamps };
}
