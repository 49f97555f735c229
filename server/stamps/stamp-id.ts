import { monotonicFactory } from "ulid";

// Monotonic: ids made within one millisecond still sort in creation order.
const nextUlid = monotonicFactory();

/** `stp_` and a ULID whose time part is the stamp's creation time (docs/design.md, Identifiers). */
export const newStampId = (createdAt: Date): string => `stp_${nextUlid(createdAt.getTime())}`;
