import { createContextKey } from "@connectrpc/connect";

/** The TCP peer of a call, for client identification when no key is presented. */
export const peerAddressKey = createContextKey<string>("", { description: "peer address" });
