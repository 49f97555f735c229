import { generateKeyPairSync } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import { createLogger } from "../../server/logger.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";

type Schemas = components["schemas"];
export type StampResponse = Schemas["StampResponse"];
export type VaultResponse = Schemas["VaultResponse"];
export type HeartbeatReceipt = Schemas["HeartbeatReceipt"];

/** A reply that was not the expected status, with its body for the report. */
export class UnexpectedReply extends Error {
  constructor(
    readonly status: number,
    body: string,
    what: string,
  ) {
    super(`${what} answered ${status}: ${body.slice(0, 300)}`);
  }
}

/**
 * REST calls of a client outside the server's process (the crash test and the soak talk to a
 * child process), each resolving only on the expected status with a fully read body.
 */
export class RestCalls {
  /** Whoever may retrieve the vaults' keys: nobody does here. */
  private readonly recipient = ed25519Signer(generateKeyPairSync("ed25519").privateKey).publicKey;

  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  withBase(baseUrl: string): RestCalls {
    return new RestCalls(baseUrl, this.key);
  }

  /** POST /stamps with `content` as the uploaded file. */
  stamp(content: Uint8Array, query = ""): Promise<StampResponse> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(content)]), "document.bin");
    return this.send("POST", `/stamps${query}`, 201, form);
  }

  getStamp(id: string): Promise<StampResponse> {
    return this.send("GET", `/stamps/${id}`, 200);
  }

  verifyStamp(id: string): Promise<Schemas["VerifyResponse"]> {
    return this.send("POST", `/stamps/${id}/verify`, 200);
  }

  verifyDocument(stampJson: unknown): Promise<Schemas["VerifyResponse"]> {
    return this.send("POST", "/verify", 200, { stamp_json: stampJson });
  }

  proof(id: string): Promise<Schemas["StampProof"]> {
    return this.send("GET", `/stamps/${id}/proof`, 200);
  }

  hash(content: Uint8Array): Promise<Schemas["HashResult"]> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(content)]), "document.bin");
    return this.send("POST", "/hash", 200, form);
  }

  createVault(heartbeatDeadline: number): Promise<VaultResponse> {
    return this.send("POST", "/vault/create", 201, {
      encrypted_key: Buffer.from("age1-encrypted-key-material").toString("base64"),
      heartbeat_deadline: heartbeatDeadline,
      recipient_public_key: this.recipient,
    });
  }

  getVault(id: string): Promise<VaultResponse> {
    return this.send("GET", `/vault/${id}`, 200);
  }

  heartbeat(vaultId: string, receipt: string): Promise<HeartbeatReceipt> {
    return this.send("POST", `/vault/${vaultId}/heartbeat`, 200, { fee_receipt: receipt });
  }

  logInfo(): Promise<Schemas["LogInfo"]> {
    return this.send("GET", "/log", 200);
  }

  private async send<T>(method: string, path: string, expected: number, body?: unknown): Promise<T> {
    const json = body !== undefined && !(body instanceof FormData);
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(json ? { "content-type": "application/json" } : {}),
      },
      body: json ? JSON.stringify(body) : (body as FormData | undefined),
    });
    const text = await res.text();
    if (res.status !== expected) throw new UnexpectedReply(res.status, text, `${method} ${path}`);
    return JSON.parse(text) as T;
  }
}

/**
 * Mints heartbeat fee receipts with the development issuer key the server created in `dataDir`
 * (what `stampd receipts issue` does), for the default fee schedule.
 */
export function receiptMinter(dataDir: string): (amount?: string) => string {
  const issuer = devIssuer(dataDir, createLogger({ LOG_LEVEL: "silent" }));
  return (amount = "0.50") =>
    issueReceipt(issuer, {
      amount,
      currency: "USDC",
      recipient: "stampd-dev-fee-recipient",
      issuedAt: new Date(),
      expiresInSeconds: 7 * 86_400,
    });
}
