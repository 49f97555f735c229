import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const list = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

/**
 * Every setting the server reads from the environment, with its default. The README's configuration
 * table mirrors this schema; `loadConfig` rejects a bad value with one line naming the variable.
 */
export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: port.default(8080),
  GRPC_HOST: z.string().min(1).optional(),
  GRPC_PORT: port.default(50051),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  SERVICE_BASE_URL: z.url().optional(),
  CORS_ORIGINS: list.default(["*"]),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  MAX_UPLOAD_BYTES: positiveInt.default(1024 * 1024 * 1024),
  MAX_JSON_BYTES: positiveInt.default(1024 * 1024),
  VALIDATE_RESPONSES: bool.optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError whose message is one line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `invalid configuration: ${issue.path.join(".")}: ${issue.message}`,
  );
  throw new ConfigError(lines.join("\n"));
}

/** The base URL third parties see; defaults to the local listener. */
export function publicBaseUrl(config: Config): string {
  if (config.SERVICE_BASE_URL) return config.SERVICE_BASE_URL.replace(/\/+$/, "");
  const host = config.HOST === "0.0.0.0" || config.HOST === "::" ? "localhost" : config.HOST;
  return `http://${host}:${config.PORT}`;
}
