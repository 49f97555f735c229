import type { AppContext } from "../context.js";
import { IdentityService } from "../identities/identity-service.js";
import type { StampFingerprinter } from "./fingerprinter.js";
import type { EvidenceSource } from "./stamp-evidence.js";
import { StampSearch } from "./stamp-search.js";
import { StampService } from "./stamp-service.js";

export interface StampDomain {
  /** Making, reading and verifying stamps. */
  service: StampService;
  /** Accounts' Ed25519 signing identities. */
  identities: IdentityService;
  /** Public search of stamps by document hash. */
  search: StampSearch;
}

export type StampPorts = Pick<AppContext, "store" | "keys" | "clock" | "events"> & {
  /** What stamps learn of their batches and anchors: the proof domain's (built once). */
  evidence: EvidenceSource;
  fingerprinter?: StampFingerprinter;
};

/** Assembles the stamp and identity services, for every transport. */
export function createStampDomain({
  store,
  keys,
  clock,
  events,
  evidence,
  fingerprinter,
}: StampPorts): StampDomain {
  const identities = new IdentityService(store.identities, store.stamps, keys.atRest, clock);
  const service = new StampService({
    stamps: store.stamps,
    identities,
    signing: keys.signing,
    ring: keys.ring,
    clock,
    events,
    fingerprinter,
    evidence,
  });
  return { service, identities, search: new StampSearch(store.stamps) };
}
