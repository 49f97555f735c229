import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** Names inside a backup archive. */
export const MANIFEST = "manifest.json";
export const DATABASE = "stampd.db";
export const KEYS = "keys";

const member = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  /** Where a key file was read from, when not from DATA_DIR/keys/ (a configured file or variable). */
  source: z.string().optional(),
});

/**
 * What a backup holds and how to check it: the format, who made it and when, and the SHA-256 of
 * every other member. `database: "none"` is a keys-only backup (PostgreSQL deployments dump their
 * database with pg_dump).
 */
export const manifestSchema = z.object({
  format: z.literal("stampd-backup"),
  format_version: z.literal(1),
  stampd_version: z.string(),
  created_at: z.iso.datetime(),
  database: z.enum(["sqlite", "none"]),
  files: z.array(member),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestMember = z.infer<typeof member>;

/** The manifest entry of the file at `root/path`. */
export function describeMember(root: string, path: string, source?: string): ManifestMember {
  const content = readFileSync(join(root, path));
  return { path, sha256: sha256(content), bytes: content.length, ...(source ? { source } : {}) };
}

export const sha256 = (content: Buffer): string => createHash("sha256").update(content).digest("hex");
