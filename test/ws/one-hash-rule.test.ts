import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { TestClient } from "./ws-client.js";

// One rule everywhere (issue #36): hex digits of a content hash in either case and URI schemes in
// either case, on every transport that takes them, as REST and gRPC already did for hashes.
let svc: RunningService;
let key: string;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  key = (await issueKey(svc)).key;
});
afterAll(() => svc.close());

const upper = `sha256:${"AB".repeat(32)}`;

describe("a content hash in upper-case hex", () => {
  it("is taken by a WebSocket stamp request and answered in lower case", async () => {
    const client = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": key } });
    try {
      const reply = await client.request({ type: "stamp", data: { contentHash: upper } });
      expect(reply).toMatchObject({ type: "stamp_created", data: { contentHash: upper.toLowerCase() } });
      const id = (reply as { data: { id: string } }).data.id;
      const verified = await client.request({ type: "verify", data: { stampId: id, contentHash: upper } });
      expect(verified).toMatchObject({ type: "verification_result" });
    } finally {
      client.close();
    }
  });
});

describe("a content URI's scheme in upper case", () => {
  it.each(["IPFS://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", "HTTPS://example.org/x"])(
    "%s is a content URI",
    async (uri) => {
      const res = await fetch(`${svc.baseUrl}/vault/create`, {
        method: "POST",
        headers: { "X-API-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({
          encrypted_key: encryptedKey,
          heartbeat_deadline: 7200,
          recipient_public_key: newRecipient().publicKey,
          content_uris: [uri],
        }),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { content_uris: string[] }).content_uris).toEqual([uri]);
    },
  );
});
