import { monotonicFactory } from "ulid";

const next = monotonicFactory();

/** Prefixed ULIDs whose time part is the service clock's, so ids sort like creation times. */
export const newVaultId = (now: Date) => `vlt_${next(now.getTime())}`;
export const newGroupId = (now: Date) => `grp_${next(now.getTime())}`;
