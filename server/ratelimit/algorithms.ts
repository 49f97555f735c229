import type { Algorithm, AlgorithmName } from "./algorithm.js";
import { slidingWindow } from "./sliding-window.js";
import { tokenBucket } from "./token-bucket.js";

/**
 * Each algorithm's TypeScript step: the memory store's, and what the Redis store's recent states
 * are refilled by (the Lua scripts are its twins, held to it by test/ratelimit).
 */
export const algorithms: Record<AlgorithmName, Algorithm> = {
  token_bucket: tokenBucket as Algorithm,
  sliding_window: slidingWindow as Algorithm,
};
