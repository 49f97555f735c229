import type { Request } from "express";
import type { operations } from "../../../gen/openapi/types.js";
import { missingApiKey } from "../../auth/auth-errors.js";
import { invalid } from "../../errors.js";
import type { Idempotency } from "../../idempotency/idempotency.js";
import type { Logger } from "../../logger.js";
import { formatDecimal } from "../../vault/fees/decimal.js";
import { describeFees } from "../../vault/fees/schedule.js";
import type { VaultState } from "../../vault/state.js";
import type { VaultService } from "../../vault/vault-service.js";
import { idempotent } from "../middleware/idempotency.js";
import { groupView, listItemView, vaultView } from "../views/vault-views.js";
import { type Handlers, sendJson } from "./handler.js";

type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** The caller's account; the spec makes every operation here key-only, so one is always present. */
function account(req: Request): string {
  const id = req.principal.accountId;
  if (!id) throw missingApiKey();
  return id;
}

const vaultId = (req: Request) => req.params.id as string;

/** REST handlers of the vault (spec tag `vault`): translate, call VaultService, shape the answer. */
export function vaultHandlers(vaults: VaultService, idempotency: Idempotency, logger: Logger): Handlers {
  const once = (op: "createVault" | "heartbeatVault" | "batchHeartbeat", handler: Handlers[typeof op]) =>
    idempotent(idempotency, logger, op, handler!);
  return {
    getVaultFees: (_req, res) => sendJson(res, "getVaultFees", 200, describeFees(vaults.fees)),

    createVault: once("createVault", async (req, res) => {
      const body = req.body as Body<"createVault">;
      const vault = await vaults.create(account(req), {
        encryptedKey: body.encrypted_key,
        heartbeatDeadline: body.heartbeat_deadline,
        recipientPublicKey: body.recipient_public_key,
        contentUris: body.content_uris,
        allowManualRelease: body.allow_manual_release,
        metadata: body.metadata,
        feeReceipt: body.fee_receipt,
      });
      res.setHeader("Location", `/vault/${vault.id}`);
      sendJson(res, "createVault", 201, vaultView(vault));
    }),

    heartbeatVault: once("heartbeatVault", async (req, res) => {
      const body = req.body as Body<"heartbeatVault">;
      const { vault, heartbeatAt } = await vaults.heartbeat(account(req), vaultId(req), body.fee_receipt);
      sendJson(res, "heartbeatVault", 200, {
        vault_id: vault.id,
        heartbeat_at: heartbeatAt.toISOString(),
        next_deadline: vault.deadline.toISOString(),
        fee_amount: formatDecimal(vaults.fees.heartbeatFee),
        fee_currency: vaults.fees.currency,
      });
    }),

    batchHeartbeat: once("batchHeartbeat", async (req, res) => {
      const body = req.body as Body<"batchHeartbeat">;
      const outcome = await vaults.batchHeartbeat(account(req), body.vault_ids, body.fee_receipt);
      sendJson(res, "batchHeartbeat", 200, {
        renewed: outcome.renewed.length,
        failed: outcome.failed.length,
        results: outcome.renewed.map(({ vault }) => ({
          vault_id: vault.id,
          next_deadline: vault.deadline.toISOString(),
        })),
        errors: outcome.failed.map((f) => ({ vault_id: f.vaultId, code: f.code, detail: f.detail })),
      });
    }),

    getVault: async (req, res) => {
      sendJson(res, "getVault", 200, vaultView(await vaults.get(account(req), vaultId(req))));
    },

    listVaults: async (req, res) => {
      const page = pageQuery(req, 50);
      const { items, total } = await vaults.list(account(req), page);
      sendJson(res, "listVaults", 200, {
        items: items.map(listItemView),
        total,
        limit: page.limit,
        offset: page.offset,
      });
    },

    releaseVault: async (req, res) => {
      const { reason } = req.body as Body<"releaseVault">;
      const vault = await vaults.release(account(req), vaultId(req), reason);
      sendJson(res, "releaseVault", 200, {
        vault_id: vault.id,
        released: true,
        released_at: vault.releasedAt!.toISOString(),
        reason,
      });
    },

    burnVault: async (req, res) => {
      const { reason } = req.body as Body<"burnVault">;
      const vault = await vaults.burn(account(req), vaultId(req), reason);
      sendJson(res, "burnVault", 200, {
        vault_id: vault.id,
        burned: true,
        burned_at: vault.burnedAt!.toISOString(),
        reason,
      });
    },

    retrieveVaultKey: async (req, res) => {
      const body = req.body as Body<"retrieveVaultKey">;
      const key = await vaults.retrieve(account(req), vaultId(req), {
        proofOfIdentity: body.proof_of_identity,
        signedAt: body.signed_at,
      });
      sendJson(res, "retrieveVaultKey", 200, {
        vault_id: key.vaultId,
        encrypted_key: key.encryptedKey,
        released_at: key.releasedAt.toISOString(),
      });
    },

    addVaultMirror: async (req, res) => {
      const { uri } = req.body as Body<"addVaultMirror">;
      const contentUris = await vaults.addMirror(account(req), vaultId(req), uri);
      sendJson(res, "addVaultMirror", 200, { vault_id: vaultId(req), content_uris: contentUris });
    },

    createHeartbeatGroup: async (req, res) => {
      const body = req.body as Body<"createHeartbeatGroup">;
      const group = await vaults.createGroup(account(req), {
        name: body.name,
        vaultIds: body.vault_ids,
        interval: body.interval,
      });
      sendJson(res, "createHeartbeatGroup", 201, groupView(group));
    },
  };
}

/** `state`, `limit` and `offset` of a listing (the validator has checked their types and ranges). */
export function pageQuery(req: Request, defaultLimit: number) {
  const { state, limit, offset } = req.query as Record<string, string | undefined>;
  return {
    state: state as VaultState | undefined,
    limit: limit === undefined ? defaultLimit : Number(limit),
    offset: offset === undefined ? 0 : wholeOffset(offset),
  };
}

/**
 * The validator lets "1e309" and "Infinity" through as integers (they coerce to Infinity); the
 * spec's bound (at most 2^53 - 1) is enforced here, where the number is read.
 */
function wholeOffset(text: string): number {
  const offset = Number(text);
  if (Number.isSafeInteger(offset) && offset >= 0) return offset;
  throw invalid("request validation failed", [
    { path: "/query/offset", message: "must be an integer from 0 to 9007199254740991" },
  ]);
}
