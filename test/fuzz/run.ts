import { startService } from "../helpers/service.js";
import { fuzzGrpc } from "./grpc/grpc-fuzz.js";
import type { Surface, SurfaceReport } from "./report.js";
import { fuzzRest } from "./rest/rest-fuzz.js";
import { fuzzWs } from "./ws/ws-fuzz.js";

export interface FuzzRunOptions {
  seed: number;
  /** Requests per surface. */
  counts: Partial<Record<Surface, number>>;
}

/**
 * One fuzz run: a fresh service (SQLite in a temporary folder; rate limiting on, response
 * validation off so the fuzzer's own checks see what the server really sends), then each surface
 * in turn. The service is shut down at the end; a crash ends the run with the error.
 */
export async function fuzzService(options: FuzzRunOptions): Promise<SurfaceReport[]> {
  const svc = await startService({ VALIDATE_RESPONSES: "false" });
  try {
    const reports: SurfaceReport[] = [];
    const { rest, ws, grpc } = options.counts;
    if (rest) reports.push(await fuzzRest(svc, { seed: options.seed, count: rest }));
    if (ws) reports.push(await fuzzWs(svc, { seed: options.seed, count: ws }));
    if (grpc) reports.push(await fuzzGrpc(svc, { seed: options.seed, count: grpc }));
    return reports;
  } finally {
    await svc.close();
  }
}
