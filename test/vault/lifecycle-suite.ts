import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestEngine } from "../store/engines.js";
import { VaultFixture } from "./fixture.js";

const alice = "acc_alice";
const bob = "acc_bob";
const day = 86_400;

/** Vault operations on a database engine: create, heartbeat, release, retrieve, burn, mirrors, groups. */
export function lifecycleSuite(engine: TestEngine) {
  describe(engine.name, () => {
    let f: VaultFixture;
    beforeEach(async () => {
      f = await VaultFixture.open({}, engine);
    });
    afterEach(() => f.close());

    const fee = () => f.receipt("0.50");

    describe("create", () => {
      it("starts active with deadline = now + heartbeat_deadline and announces it", async () => {
        const vault = await f.create(alice, {
          heartbeatDeadline: 3600,
          contentUris: ["ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U"],
        });
        expect(vault).toMatchObject({
          state: "active",
          accountId: alice,
          heartbeatCount: 0,
          lastHeartbeat: null,
          allowManualRelease: false,
          metadata: {},
          groupId: null,
        });
        expect(vault.id).toMatch(/^vlt_[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(vault.deadline.toISOString()).toBe("2026-01-01T01:00:00.000Z");
        expect(f.events).toEqual([
          {
            type: "vault_created",
            scope: { accountId: alice, vaultId: vault.id },
            data: {
              vaultId: vault.id,
              state: "active",
              deadline: "2026-01-01T01:00:00.000Z",
              contentUris: ["ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U"],
            },
          },
        ]);
      });

      it("refuses deadlines outside the configured bounds", async () => {
        const narrow = await VaultFixture.open(
          {
            VAULT_MIN_DEADLINE_SECONDS: "3600",
            VAULT_MAX_DEADLINE_SECONDS: "7200",
          },
          engine,
        );
        try {
          await expect(narrow.create(alice, { heartbeatDeadline: 60 })).rejects.toMatchObject({
            code: "invalid_argument",
            reason: "validation_failed",
            fieldErrors: [{ path: "/body/heartbeat_deadline", message: "must be >= 3600" }],
          });
          await expect(narrow.create(alice, { heartbeatDeadline: 7201 })).rejects.toMatchObject({
            fieldErrors: [{ path: "/body/heartbeat_deadline", message: "must be <= 7200" }],
          });
        } finally {
          await narrow.close();
        }
      });

      it.each([
        ["ftp://example.org/x", "must be an ipfs://, ar://, s3:// or https:// URI"],
        ["http://example.org/x", "must be an ipfs://, ar://, s3:// or https:// URI"],
        ["ipfs://not-a-cid", "is not a valid ipfs:// URI"],
        ["ar://short", "is not a valid ar:// URI"],
        ["s3://Bad_Bucket/key", "is not a valid s3:// URI"],
        ["s3://bucket-only", "is not a valid s3:// URI"],
        ["https://user:pw@example.org/x", "is not a valid https:// URI"],
      ])("refuses the content URI %s", async (uri, message) => {
        await expect(f.create(alice, { contentUris: [uri] })).rejects.toMatchObject({
          fieldErrors: [{ path: "/body/content_uris/0", message }],
        });
      });

      it.each([
        "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
        "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/readme.txt",
        "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U",
        "s3://my-bucket.example/escrow/archive.tar.age",
        "https://files.example.org/estate/archive.tar.age",
      ])("accepts the content URI %s", async (uri) => {
        await expect(f.create(alice, { contentUris: [uri] })).resolves.toMatchObject({ contentUris: [uri] });
      });

      it("keeps metadata of any JSON values exactly, keys in the order given", async () => {
        const metadata = { z: 1, nested: { b: [true, null, 2.5, "x"], a: { deep: {} } }, s: "text", n: null };
        const vault = await f.create(alice, { metadata });
        const stored = await f.vaults.get(alice, vault.id);
        expect(stored.metadata).toEqual(metadata);
        expect(JSON.stringify(stored.metadata)).toBe(JSON.stringify(metadata));
      });

      it.each([
        ["nested 9 levels deep", { a: [[[[[[[["too deep"]]]]]]]] }, "deeper than 8 levels"],
        ["over 16384 bytes as JSON", { big: "x".repeat(16_400) }, "larger than 16384 bytes"],
      ])("refuses metadata %s (400 at /body/metadata)", async (_name, metadata, message) => {
        await expect(f.create(alice, { metadata })).rejects.toMatchObject({
          code: "invalid_argument",
          fieldErrors: [{ path: "/body/metadata", message: expect.stringContaining(message) }],
        });
      });

      it("accepts metadata exactly at the bounds (8 levels, 16384 bytes)", async () => {
        const deep = { a: [[[[[[["8 levels"]]]]]]] };
        await expect(f.create(alice, { metadata: deep })).resolves.toMatchObject({ metadata: deep });
        const big = { big: "x".repeat(16_384 - '{"big":""}'.length) };
        await expect(f.create(alice, { metadata: big })).resolves.toMatchObject({ metadata: big });
      });
    });

    describe("heartbeat", () => {
      it("moves the deadline, sets last_heartbeat, counts, and announces", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: day });
        f.advance(3600);
        const first = await f.vaults.heartbeat(alice, vault.id, fee());
        f.advance(60);
        const second = await f.vaults.heartbeat(alice, vault.id, fee());
        expect(first.vault.deadline.toISOString()).toBe("2026-01-02T01:00:00.000Z");
        expect(second.vault).toMatchObject({
          heartbeatCount: 2,
          lastHeartbeat: new Date("2026-01-01T01:01:00.000Z"),
        });
        expect(second.vault.deadline.toISOString()).toBe("2026-01-02T01:01:00.000Z");
        const stored = await f.vaults.get(alice, vault.id);
        expect(stored).toMatchObject({ heartbeatCount: 2, deadline: second.vault.deadline, state: "active" });
        expect(f.eventsOf("vault_heartbeat").map((e) => e.data)).toEqual([
          {
            vaultId: vault.id,
            heartbeatAt: "2026-01-01T01:00:00.000Z",
            nextDeadline: "2026-01-02T01:00:00.000Z",
            heartbeatCount: 1,
          },
          {
            vaultId: vault.id,
            heartbeatAt: "2026-01-01T01:01:00.000Z",
            nextDeadline: "2026-01-02T01:01:00.000Z",
            heartbeatCount: 2,
          },
        ]);
      });

      it("is refused on a vault that is not active (409 vault_not_active), without consuming the receipt", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        await f.vaults.release(alice, vault.id, "early");
        const receipt = fee();
        await expect(f.vaults.heartbeat(alice, vault.id, receipt)).rejects.toMatchObject({
          code: "conflict",
          reason: "vault_not_active",
        });
        const other = await f.create(alice);
        await expect(f.vaults.heartbeat(alice, other.id, receipt)).resolves.toBeDefined();
      });

      it("finds a vault past its deadline expired even before the scheduler ran, and expires it once", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: 3600 });
        f.advance(3600);
        await expect(f.vaults.heartbeat(alice, vault.id, fee())).rejects.toMatchObject({
          reason: "vault_not_active",
        });
        await f.domain.scheduler.tick();
        expect(f.eventsOf("vault_expired")).toHaveLength(1);
        expect((await f.vaults.get(alice, vault.id)).state).toBe("expired");
      });
    });

    describe("release", () => {
      it("releases an active vault when allowed and announces the reason", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        f.advance(10);
        const released = await f.vaults.release(alice, vault.id, "executor request");
        expect(released).toMatchObject({ state: "released", releaseReason: "executor request" });
        expect(released.releasedAt?.toISOString()).toBe("2026-01-01T00:00:10.000Z");
        expect(f.eventsOf("vault_released").map((e) => e.data)).toEqual([
          { vaultId: vault.id, releasedAt: "2026-01-01T00:00:10.000Z", reason: "executor request" },
        ]);
      });

      it("is forbidden without allow_manual_release (403), in any state", async () => {
        const vault = await f.create(alice);
        await expect(f.vaults.release(alice, vault.id, "why not")).rejects.toMatchObject({
          code: "permission_denied",
          reason: "manual_release_not_allowed",
        });
        await f.vaults.burn(alice, vault.id, "gone");
        await expect(f.vaults.release(alice, vault.id, "why not")).rejects.toMatchObject({
          reason: "manual_release_not_allowed",
        });
      });

      it.each(["released", "expired", "burned"] as const)(
        "is refused on a %s vault (409 vault_not_active)",
        async (state) => {
          const vault = await f.create(alice, { allowManualRelease: true, heartbeatDeadline: 60 });
          if (state === "released") await f.vaults.release(alice, vault.id, "first");
          if (state === "expired") f.advance(60);
          if (state === "burned") await f.vaults.burn(alice, vault.id, "gone");
          await expect(f.vaults.release(alice, vault.id, "again")).rejects.toMatchObject({
            reason: "vault_not_active",
          });
        },
      );
    });

    describe("retrieve", () => {
      it("returns the key of a released vault to the recipient, from any account, repeatably", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        const released = await f.vaults.release(alice, vault.id, "now");
        const key = await f.vaults.retrieve(bob, vault.id, f.proof(vault.id));
        expect(key).toEqual({
          vaultId: vault.id,
          encryptedKey: Buffer.from("age1-encrypted-key-material").toString("base64"),
          releasedAt: released.releasedAt,
        });
        f.advance(1);
        await expect(f.vaults.retrieve(bob, vault.id, f.proof(vault.id))).resolves.toMatchObject({
          vaultId: vault.id,
        });
        expect((await f.vaults.get(alice, vault.id)).state).toBe("released");
      });

      it("returns the key of an expired vault, released_at being its deadline", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: 3600 });
        f.advance(7200);
        const key = await f.vaults.retrieve(bob, vault.id, f.proof(vault.id));
        expect(key.releasedAt).toEqual(vault.deadline);
      });

      it.each(["active", "burned"] as const)(
        "is refused on a %s vault (409 vault_not_retrievable)",
        async (state) => {
          const vault = await f.create(alice);
          if (state === "burned") await f.vaults.burn(alice, vault.id, "gone");
          await expect(f.vaults.retrieve(bob, vault.id, f.proof(vault.id))).rejects.toMatchObject({
            code: "conflict",
            reason: "vault_not_retrievable",
          });
        },
      );

      it("refuses a replayed, stale, future, foreign or mistargeted proof (403)", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        const other = await f.create(alice, { allowManualRelease: true });
        await f.vaults.release(alice, vault.id, "now");
        await f.vaults.release(alice, other.id, "now");
        const proof = f.proof(vault.id);
        await f.vaults.retrieve(bob, vault.id, proof);
        const refused = { code: "permission_denied", reason: "invalid_proof_of_identity" };
        await expect(f.vaults.retrieve(bob, vault.id, proof)).rejects.toMatchObject(refused);
        const now = f.clock.now().getTime();
        const stale = f.recipient.prove(vault.id, new Date(now - 301_000).toISOString());
        await expect(f.vaults.retrieve(bob, vault.id, stale)).rejects.toMatchObject(refused);
        const future = f.recipient.prove(vault.id, new Date(now + 301_000).toISOString());
        await expect(f.vaults.retrieve(bob, vault.id, future)).rejects.toMatchObject(refused);
        const edge = f.recipient.prove(vault.id, new Date(now - 300_000).toISOString());
        await expect(f.vaults.retrieve(bob, vault.id, edge)).resolves.toBeDefined();
        const { newRecipient } = await import("./fixture.js");
        const stranger = newRecipient().prove(vault.id, new Date(now).toISOString());
        await expect(f.vaults.retrieve(bob, vault.id, stranger)).rejects.toMatchObject(refused);
        const forOther = f.recipient.prove(other.id, new Date(now - 1000).toISOString());
        await expect(f.vaults.retrieve(bob, vault.id, forOther)).rejects.toMatchObject(refused);
      });

      it("answers 404 for an unknown vault", async () => {
        const id = "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M";
        await expect(f.vaults.retrieve(bob, id, f.proof(id))).rejects.toMatchObject({
          code: "not_found",
          reason: "vault_not_found",
        });
      });

      it("needs signed_at for a vault with a recipient key (400)", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        await f.vaults.release(alice, vault.id, "now");
        const { proofOfIdentity } = f.proof(vault.id);
        await expect(f.vaults.retrieve(bob, vault.id, { proofOfIdentity })).rejects.toMatchObject({
          code: "invalid_argument",
          fieldErrors: [{ path: "/body/signed_at" }],
        });
      });

      describe("an owner-bound vault (no recipient key)", () => {
        const token = () => randomBytes(32).toString("base64");
        const refused = { code: "permission_denied", reason: "invalid_proof_of_identity" };

        it("is retrieved by its owner with a fresh token each time; a token is accepted once", async () => {
          const vault = await f.create(alice, { recipientPublicKey: undefined, allowManualRelease: true });
          expect(vault.recipientPublicKey).toBeNull();
          await f.vaults.release(alice, vault.id, "now");
          const first = { proofOfIdentity: token() };
          await expect(f.vaults.retrieve(alice, vault.id, first)).resolves.toMatchObject({
            vaultId: vault.id,
            encryptedKey: Buffer.from("age1-encrypted-key-material").toString("base64"),
          });
          await expect(f.vaults.retrieve(alice, vault.id, first)).rejects.toMatchObject(refused);
          await expect(
            f.vaults.retrieve(alice, vault.id, { proofOfIdentity: token() }),
          ).resolves.toBeDefined();
          expect((await f.vaults.get(alice, vault.id)).state).toBe("released");
        });

        it("refuses another spelling of a used token, and a token used on another vault is fresh here", async () => {
          const one = await f.create(alice, { recipientPublicKey: undefined, heartbeatDeadline: 3600 });
          const two = await f.create(alice, { recipientPublicKey: undefined, heartbeatDeadline: 3600 });
          f.advance(3600);
          const bytes = randomBytes(32);
          const canonical = bytes.toString("base64");
          // 32 bytes end in one padded group whose last character carries 2 unused bits: setting
          // them spells the same bytes differently, which a lenient decoder accepts.
          const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
          const last = alphabet.indexOf(canonical[42]!);
          const respelled = `${canonical.slice(0, 42)}${alphabet[last | 0b11]}=`;
          expect(Buffer.from(respelled, "base64").equals(bytes)).toBe(true);
          await f.vaults.retrieve(alice, one.id, { proofOfIdentity: canonical });
          await expect(
            f.vaults.retrieve(alice, one.id, { proofOfIdentity: respelled }),
          ).rejects.toMatchObject(refused);
          await expect(
            f.vaults.retrieve(alice, two.id, { proofOfIdentity: canonical }),
          ).resolves.toMatchObject({
            vaultId: two.id,
            releasedAt: two.deadline,
          });
        });

        it("answers 404 to every other account, with any proof", async () => {
          const vault = await f.create(alice, { recipientPublicKey: undefined, heartbeatDeadline: 3600 });
          f.advance(3600);
          for (const proof of [{ proofOfIdentity: token() }, f.proof(vault.id)]) {
            await expect(f.vaults.retrieve(bob, vault.id, proof)).rejects.toMatchObject({
              code: "not_found",
              reason: "vault_not_found",
            });
          }
        });

        it("refuses a token shorter than 16 bytes (403)", async () => {
          const vault = await f.create(alice, { recipientPublicKey: undefined, heartbeatDeadline: 3600 });
          f.advance(3600);
          const short = { proofOfIdentity: randomBytes(15).toString("base64") };
          await expect(f.vaults.retrieve(alice, vault.id, short)).rejects.toMatchObject(refused);
        });
      });
    });

    describe("burn", () => {
      it.each(["active", "released", "expired"] as const)(
        "burns a %s vault, erasing its key for good",
        async (state) => {
          const vault = await f.create(alice, { allowManualRelease: true, heartbeatDeadline: 60 });
          if (state === "released") await f.vaults.release(alice, vault.id, "r");
          if (state === "expired") f.advance(61);
          const burned = await f.vaults.burn(alice, vault.id, "rotated");
          expect(burned).toMatchObject({ state: "burned", burnReason: "owner_request", burnNote: "rotated" });
          const rows = await f.rows("SELECT encrypted_key FROM vaults WHERE id = ?", vault.id);
          expect(rows).toEqual([{ encrypted_key: null }]);
          expect(f.eventsOf("vault_burned").map((e) => e.data)).toEqual([
            {
              vaultId: vault.id,
              burnedAt: f.clock.now().toISOString(),
              reason: "rotated",
              cause: "owner_request",
            },
          ]);
        },
      );

      it("is refused on a burned vault (409 vault_burned)", async () => {
        const vault = await f.create(alice);
        await f.vaults.burn(alice, vault.id, "once");
        await expect(f.vaults.burn(alice, vault.id, "twice")).rejects.toMatchObject({
          reason: "vault_burned",
        });
      });
    });

    describe("add mirror", () => {
      const uri = (i: number) => `https://mirror${i}.example.org/archive`;

      it("appends a URI, keeps a repeated one once, and works after release", async () => {
        const vault = await f.create(alice, { contentUris: [uri(0)], allowManualRelease: true });
        expect(await f.vaults.addMirror(alice, vault.id, uri(1))).toEqual([uri(0), uri(1)]);
        expect(await f.vaults.addMirror(alice, vault.id, uri(1))).toEqual([uri(0), uri(1)]);
        await f.vaults.release(alice, vault.id, "r");
        expect(await f.vaults.addMirror(alice, vault.id, uri(2))).toEqual([uri(0), uri(1), uri(2)]);
        expect((await f.vaults.get(alice, vault.id)).contentUris).toEqual([uri(0), uri(1), uri(2)]);
      });

      it("refuses a 17th URI (409 too_many_mirrors), a burned vault (409) and a bad URI (400)", async () => {
        const vault = await f.create(alice, { contentUris: Array.from({ length: 16 }, (_, i) => uri(i)) });
        await expect(f.vaults.addMirror(alice, vault.id, uri(16))).rejects.toMatchObject({
          reason: "too_many_mirrors",
        });
        await expect(f.vaults.addMirror(alice, vault.id, "gopher://x")).rejects.toMatchObject({
          reason: "validation_failed",
          fieldErrors: [{ path: "/body/uri" }],
        });
        await f.vaults.burn(alice, vault.id, "gone");
        await expect(f.vaults.addMirror(alice, vault.id, uri(0))).rejects.toMatchObject({
          reason: "vault_burned",
        });
      });
    });

    describe("heartbeat groups", () => {
      it("groups the caller's active vaults; a member's next heartbeat uses the interval", async () => {
        const a = await f.create(alice, { heartbeatDeadline: 30 * day });
        const b = await f.create(alice, { heartbeatDeadline: 2 * day });
        const group = await f.vaults.createGroup(alice, {
          name: "estate",
          vaultIds: [a.id, b.id],
          interval: 7 * day,
        });
        expect(group).toMatchObject({
          name: "estate",
          vaultIds: [a.id, b.id],
          interval: 7 * day,
          accountId: alice,
        });
        expect(group.id).toMatch(/^grp_/);
        const unchanged = await f.vaults.get(alice, a.id);
        expect(unchanged).toMatchObject({ deadline: a.deadline, groupId: group.id });
        f.advance(3600);
        const renewed = await f.vaults.heartbeat(alice, a.id, fee());
        expect(renewed.vault.deadline.getTime()).toBe(f.clock.now().getTime() + 7 * day * 1000);
      });

      it("refuses a vault already in a group (409), not active (409), or not the caller's (404)", async () => {
        const a = await f.create(alice);
        const b = await f.create(alice, { heartbeatDeadline: 60 });
        const theirs = await f.create(bob);
        await f.vaults.createGroup(alice, { name: "one", vaultIds: [a.id], interval: day });
        await expect(
          f.vaults.createGroup(alice, { name: "two", vaultIds: [a.id], interval: day }),
        ).rejects.toMatchObject({
          reason: "vault_in_group",
        });
        await expect(
          f.vaults.createGroup(alice, { name: "two", vaultIds: [theirs.id], interval: day }),
        ).rejects.toMatchObject({
          code: "not_found",
          reason: "vault_not_found",
        });
        f.advance(60);
        await expect(
          f.vaults.createGroup(alice, { name: "two", vaultIds: [b.id], interval: day }),
        ).rejects.toMatchObject({
          reason: "vault_not_active",
        });
        const none = await f.rows("SELECT count(*) AS n FROM vault_groups");
        expect(none).toEqual([{ n: 1 }]);
      });
    });

    describe("ownership", () => {
      it("hides another account's vault behind 404 on every owner operation", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        const notFound = { code: "not_found", reason: "vault_not_found" };
        await expect(f.vaults.get(bob, vault.id)).rejects.toMatchObject(notFound);
        await expect(f.vaults.heartbeat(bob, vault.id, fee())).rejects.toMatchObject(notFound);
        await expect(f.vaults.release(bob, vault.id, "x")).rejects.toMatchObject(notFound);
        await expect(f.vaults.burn(bob, vault.id, "x")).rejects.toMatchObject(notFound);
        await expect(f.vaults.addMirror(bob, vault.id, "https://x.example/y")).rejects.toMatchObject(
          notFound,
        );
        expect((await f.vaults.list(bob, { limit: 50, offset: 0 })).total).toBe(0);
        expect(await f.vaults.get(alice, vault.id)).toMatchObject({
          state: "active",
          heartbeatCount: 0,
          contentUris: [],
        });
      });

      it("lists only the caller's vaults, newest first, filtered by state", async () => {
        const first = await f.create(alice);
        f.advance(1);
        const second = await f.create(alice, { heartbeatDeadline: 60 });
        f.advance(1);
        const third = await f.create(alice);
        await f.create(bob);
        f.advance(60);
        const all = await f.vaults.list(alice, { limit: 50, offset: 0 });
        expect(all.items.map((v) => v.id)).toEqual([third.id, second.id, first.id]);
        expect(all.total).toBe(3);
        const expired = await f.vaults.list(alice, { state: "expired", limit: 50, offset: 0 });
        expect(expired.items.map((v) => v.id)).toEqual([second.id]);
        const page = await f.vaults.list(alice, { limit: 1, offset: 1 });
        expect(page).toMatchObject({ total: 3, items: [{ id: second.id }] });
        await expect(f.vaults.list(alice, { limit: 501, offset: 0 })).rejects.toMatchObject({
          reason: "validation_failed",
        });
      });
    });
  });
}
