import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

// `openssl ts -reply` needs signer_digest and a serial file (TOOLCHAIN.md).
const config = (dir: string) => `
[tsa]
default_tsa = tsa_config
[tsa_config]
dir = ${dir}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/tsa.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha3-256
accuracy = secs:1
ordering = no
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
[v3_tsa]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
`;

/** A real RFC 3161 TSA for tests: `openssl ts -reply` behind a local HTTP endpoint. */
export class OpensslTsa {
  readonly dir = mkdtempSync(join(tmpdir(), "stampd-openssl-tsa-"));
  private server: Server | undefined;
  url = "";
  /** Answer HTTP 503 instead of a reply, to test retries. */
  unavailable = false;

  /** The CA certificate file that issued the TSA's certificate. */
  get caFile(): string {
    return join(this.dir, "ca.pem");
  }

  async start(): Promise<this> {
    this.makeCertificates();
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        if (this.unavailable) return res.writeHead(503).end();
        try {
          const reply = await this.reply(Buffer.concat(chunks));
          res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(reply);
        } catch {
          res.writeHead(500).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/tsa`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private makeCertificates(): void {
    const at = (name: string) => join(this.dir, name);
    writeFileSync(at("tsa.cnf"), config(this.dir));
    writeFileSync(at("serial"), "01\n");
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        ...ec,
        "-keyout",
        at("ca.key"),
        "-out",
        at("ca.pem"),
        "-subj",
        "/CN=Test TSA CA",
        "-days",
        "2",
      ],
      { stdio: "ignore" },
    );
    execFileSync(
      "openssl",
      ["req", ...ec, "-keyout", at("tsa.key"), "-out", at("tsa.csr"), "-subj", "/CN=Test TSA"],
      { stdio: "ignore" },
    );
    execFileSync(
      "openssl",
      [
        "x509",
        "-req",
        "-in",
        at("tsa.csr"),
        "-CA",
        at("ca.pem"),
        "-CAkey",
        at("ca.key"),
        "-CAcreateserial",
        "-out",
        at("tsa.pem"),
        "-days",
        "2",
        "-extfile",
        at("tsa.cnf"),
        "-extensions",
        "v3_tsa",
      ],
      { stdio: "ignore" },
    );
  }

  private async reply(query: Buffer): Promise<Buffer> {
    const id = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const [queryFile, replyFile] = [join(this.dir, `${id}.tsq`), join(this.dir, `${id}.tsr`)];
    writeFileSync(queryFile, query);
    await run("openssl", [
      "ts",
      "-reply",
      "-config",
      join(this.dir, "tsa.cnf"),
      "-queryfile",
      queryFile,
      "-out",
      replyFile,
    ]);
    return readFileSync(replyFile);
  }
}
