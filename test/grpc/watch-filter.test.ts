import { describe, expect, it } from "vitest";
import { ServiceError } from "../../server/errors.js";
import { parseWatchFilter, type WatchedStampFacts } from "../../server/grpc/watch-filter.js";

const stamp: WatchedStampFacts = {
  status: "confirmed",
  algorithm: "sha256",
  metadata: { project: "alpha", "team=x": "a=b", constructor: "c" },
};

describe("WatchStamps filter (stamp.proto WatchStampsRequest.filter)", () => {
  it.each([
    ["", true],
    ["   ", true],
    ["status=confirmed", true],
    ["status=pending", false],
    ["algorithm=sha256", true],
    ["algorithm=sha3-256", false],
    ["project=alpha", true],
    ["project=Alpha", false],
    ["project=alpha\tstatus=confirmed  algorithm=sha256", true],
    ["project=alpha status=anchored", false],
    ["missing=", false],
    ["team=x=a=b", false],
    ["constructor=c", true],
    ["toString=c", false],
  ])("%j matches: %s", (filter, matches) => {
    expect(parseWatchFilter(filter)(stamp)).toBe(matches);
  });

  it("splits a term at its first =, so values may contain =", () => {
    expect(parseWatchFilter("note=a=b")({ ...stamp, metadata: { note: "a=b" } })).toBe(true);
  });

  it.each([
    ["project", 'filter: term "project" is not name=value'],
    ["=x", 'filter: term "=x" has an empty name'],
    ["status=Pending", 'filter: unknown status "Pending" (expected pending, confirmed or anchored)'],
    ["algorithm=", 'filter: unknown algorithm "" (expected sha3-256, sha256 or blake3)'],
  ])("%j is an invalid_argument: %s", (filter, message) => {
    const error = (() => {
      try {
        parseWatchFilter(filter);
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: "invalid_argument", message });
  });
});
