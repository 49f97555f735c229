import { describe, expect, it } from "vitest";
import { encodeStatusMessage } from "../../server/grpc/status-message.js";

describe("grpc-message encoding (PROTOCOL-HTTP2.md, Status-Message)", () => {
  it.each([
    [
      "content_hash: sha256 digest must be 64 hex digits, got 63",
      "content_hash: sha256 digest must be 64 hex digits, got 63",
    ],
    ["100% sure", "100%25 sure"],
    ["line\nbreak", "line%0Abreak"],
    ['metadata value of "клю"', 'metadata value of "%D0%BA%D0%BB%D1%8E"'],
  ])("%j is sent as %j", (message, wire) => {
    expect(encodeStatusMessage(message)).toBe(wire);
    expect(decodeURIComponent(wire)).toBe(message);
  });
});
