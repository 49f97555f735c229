import { bytesToHex } from "@noble/hashes/utils.js";
import type { AnchorAdapter, AnchorOutcome, AnchorSubject } from "./anchor.js";
import { JsonRpcError, jsonRpc } from "./json-rpc.js";

interface Receipt {
  status: string;
  blockNumber: string;
}

// A block comes every 12 s; a receipt is looked for at this pace.
const POLL_MS = 15_000;

/**
 * The `ethereum` anchor over JSON-RPC (`ETHEREUM_RPC_URL`): a zero-value transaction from
 * `ETHEREUM_FROM` to itself whose data is the batch root, sent with `eth_sendTransaction` (the node
 * or its signer, e.g. Clef, holds the account's key; stampd holds no Ethereum key). It confirms
 * when the receipt shows the transaction mined successfully; the reference is the transaction
 * hash and the time the block's.
 */
export class EthereumAnchor implements AnchorAdapter {
  readonly type = "ethereum" as const;

  constructor(
    private readonly rpcUrl: string | undefined,
    private readonly from: string | undefined,
    readonly unavailable: string | null,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async attempt(subject: AnchorSubject, evidence: Uint8Array | null): Promise<AnchorOutcome> {
    if (evidence === null) {
      const txHash = await this.send(subject.root);
      return { status: "pending", retryInMs: POLL_MS, evidence: new TextEncoder().encode(txHash) };
    }
    return this.follow(new TextDecoder().decode(evidence));
  }

  private async send(root: Uint8Array): Promise<string> {
    try {
      return await this.call<string>("eth_sendTransaction", [
        { from: this.from, to: this.from, value: "0x0", data: `0x${bytesToHex(root)}` },
      ]);
    } catch (err) {
      // A refusal (locked account, no funds) will not pass on a retry either; say so and wait long.
      if (err instanceof JsonRpcError)
        throw new Error(`the node refused the anchor transaction: ${err.message}`);
      throw err;
    }
  }

  private async follow(txHash: string): Promise<AnchorOutcome> {
    const receipt = await this.call<Receipt | null>("eth_getTransactionReceipt", [txHash]);
    if (!receipt) return { status: "pending", retryInMs: POLL_MS };
    if (receipt.status !== "0x1") return { status: "failed", reason: `transaction ${txHash} reverted` };
    const block = await this.call<{ timestamp: string }>("eth_getBlockByNumber", [
      receipt.blockNumber,
      false,
    ]);
    return {
      status: "confirmed",
      reference: txHash,
      confirmedAt: new Date(Number(BigInt(block.timestamp)) * 1000),
    };
  }

  private call<T>(method: string, params: unknown[]): Promise<T> {
    return jsonRpc<T>(this.rpcUrl!, method, params, this.fetchImpl);
  }
}
