import { conflict, ServiceError } from "../errors.js";
import { contentUriErrors } from "./content-uris.js";
import type { VaultDeps } from "./deps.js";
import { formatDecimal, isZero } from "./fees/decimal.js";
import { newVaultId } from "./ids.js";
import { durationError, maxContentUris, metadataError, rejectIfAny } from "./limits.js";
import { publishVaultEvent } from "./vault-events.js";
import type { FeePayment, VaultMetadata, VaultRecord } from "./vault-repository.js";

export interface CreateVaultInput {
  encryptedKey: string;
  heartbeatDeadline: number;
  /** Absent: the vault is owner-bound (retrieve.ts). */
  recipientPublicKey?: string;
  contentUris?: string[];
  allowManualRelease?: boolean;
  metadata?: VaultMetadata;
  feeReceipt?: string;
}

export const receiptUsed = (receiptId: string) =>
  conflict(`fee receipt ${receiptId} was already used`, "fee_receipt_used");

/** Creates an active vault owned by `accountId`, deadline = now + heartbeat_deadline (docs/vault.md, Lifecycle). */
export async function createVault(
  deps: VaultDeps,
  accountId: string,
  input: CreateVaultInput,
): Promise<VaultRecord> {
  const contentUris = input.contentUris ?? [];
  checkCreateInput(deps, input, contentUris);
  const now = deps.clock.now();
  const id = newVaultId(now);
  const payment = await creationFee(deps, input.feeReceipt, id);
  const vault: VaultRecord = {
    id,
    accountId,
    state: "active",
    recipientPublicKey: input.recipientPublicKey ?? null,
    heartbeatDeadline: input.heartbeatDeadline,
    allowManualRelease: input.allowManualRelease ?? false,
    contentUris,
    metadata: input.metadata ?? {},
    createdAt: now,
    deadline: new Date(now.getTime() + input.heartbeatDeadline * 1000),
    lastHeartbeat: null,
    heartbeatCount: 0,
    groupId: null,
    groupInterval: null,
    releasedAt: null,
    releaseReason: null,
    retrievedAt: null,
    burnedAt: null,
    burnReason: null,
    burnNote: null,
    version: 0,
  };
  const outcome = await deps.repo.insert(vault, input.encryptedKey, payment);
  if (outcome === "receipt_used") throw receiptUsed(payment!.receiptId);
  publishVaultEvent(deps.events, "vault_created", vault, {
    vaultId: id,
    state: vault.state,
    deadline: vault.deadline.toISOString(),
    contentUris,
  });
  return vault;
}

function checkCreateInput(deps: VaultDeps, input: CreateVaultInput, uris: string[]): void {
  const tooMany = uris.length > maxContentUris;
  const repeated = new Set(uris).size !== uris.length;
  rejectIfAny([
    durationError(deps.settings, input.heartbeatDeadline, "/body/heartbeat_deadline"),
    tooMany
      ? { path: "/body/content_uris", message: `must NOT have more than ${maxContentUris} items` }
      : undefined,
    repeated ? { path: "/body/content_uris", message: "must NOT have duplicate items" } : undefined,
    ...contentUriErrors(uris, "/body/content_uris"),
    input.metadata === undefined ? undefined : metadataError(input.metadata, "/body/metadata"),
  ]);
}

/** The creation fee's payment when create_fee is above 0 (a receipt sent when it is 0 is not consumed). */
async function creationFee(
  deps: VaultDeps,
  receipt: string | undefined,
  id: string,
): Promise<FeePayment | undefined> {
  const fee = deps.fees.createFee;
  if (isZero(fee)) return undefined;
  if (!receipt) {
    const price = `${formatDecimal(fee)} ${deps.fees.currency}`;
    throw new ServiceError(
      "unprocessable",
      `creating a vault costs ${price}; send a fee_receipt`,
      "fee_insufficient",
    );
  }
  return deps.receipts.accept(receipt, fee, { what: "creating a vault", usedFor: `create ${id}` });
}
