import type { StampService } from "../stamps/stamp-service.js";
import type { Metrics } from "./metrics.js";
import { wrapMethods } from "./wrap-methods.js";

export type Transport = "rest" | "grpc" | "websocket";

// The methods that create stamps; a renamed one stops compiling here instead of going uncounted.
const creators = new Set<string>([
  "createFromUpload",
  "createFromHash",
  "createManyFromHash",
] satisfies (keyof StampService)[]);

/**
 * The stamp service as one transport sees it, counting the stamps it creates into
 * `stampd_stamps_created_total{transport}`. A batch counts its created items, not its refusals.
 */
export function countStampCreations(
  stamps: StampService,
  metrics: Metrics,
  transport: Transport,
): StampService {
  const created = metrics.stampsCreated.labels({ transport });
  return wrapMethods(stamps, (name, call) => {
    if (!creators.has(name)) return undefined;
    return async (...args) => {
      const result = await call(...args);
      created.inc(Array.isArray(result) ? result.filter((r) => !(r instanceof Error)).length : 1);
      return result;
    };
  });
}
