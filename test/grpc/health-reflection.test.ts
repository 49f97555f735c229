import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthCheckResponse_ServingStatus, StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { grpcJsClient, unary } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";

const run = promisify(execFile);
const buf = new URL("../../node_modules/.bin/buf", import.meta.url).pathname;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

describe("grpc.health.v1 (through @grpc/grpc-js)", () => {
  it.each(["", "svc.v1.StampService"])("Check(%j) is SERVING", async (service) => {
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", svc.grpcPort);
    const res = await unary<{ status: string }>(health, "Check", { service });
    expect(res.status).toBe("SERVING");
    health.close();
  });

  it("Check of an unknown service is NOT_FOUND", async () => {
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", svc.grpcPort);
    await expect(unary(health, "Check", { service: "nope.Service" })).rejects.toMatchObject({ code: 5 });
    health.close();
  });
});

describe("an unknown service name of 70 KB", () => {
  // Echoed whole, the name made a grpc-message trailer larger than clients accept (a stream reset).
  const name = "n".repeat(70_000);
  const details = `unknown service "${"n".repeat(64)}"… (70000 characters)`;

  it("is a NOT_FOUND status from grpc.health.v1 Check, the name cut short", async () => {
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", svc.grpcPort);
    await expect(unary(health, "Check", { service: name })).rejects.toMatchObject({ code: 5, details });
    health.close();
  });

  it("is a NOT_FOUND status from StampService/HealthCheck, the name cut short", async () => {
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", svc.grpcPort);
    await expect(unary(client, "HealthCheck", { service: name })).rejects.toMatchObject({ code: 5, details });
    client.close();
  });
});

describe("svc.v1.StampService/HealthCheck", () => {
  it("answers SERVING through a Connect client speaking gRPC", async () => {
    const client = createClient(StampService, createGrpcTransport({ baseUrl: svc.grpcUrl }));
    const res = await client.healthCheck({ service: "svc.v1.StampService" });
    expect(res.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });

  it("answers SERVING through @grpc/grpc-js loading stamp.proto", async () => {
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", svc.grpcPort);
    const res = await unary<{ status: string }>(client, "HealthCheck", { service: "" });
    expect(res.status).toBe("SERVING");
    client.close();
  });
});

describe("server reflection (grpc.reflection.v1, through buf curl)", () => {
  it("lists svc.v1.StampService and the standard services", async () => {
    const { stdout } = await run(buf, [
      "curl",
      "--protocol",
      "grpc",
      "--http2-prior-knowledge",
      "--list-services",
      svc.grpcUrl,
    ]);
    const services = stdout.trim().split("\n");
    expect(services).toEqual(
      expect.arrayContaining([
        "svc.v1.StampService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
      ]),
    );
  });

  it("lets a generic client call a method it learned through reflection", async () => {
    const { stdout } = await run(buf, [
      "curl",
      "--protocol",
      "grpc",
      "--http2-prior-knowledge",
      "-d",
      '{"service": "svc.v1.StampService"}',
      `${svc.grpcUrl}/svc.v1.StampService/HealthCheck`,
    ]);
    expect(JSON.parse(stdout)).toEqual({ status: "SERVING" });
  });
});

describe("shutdown", () => {
  it("flips Health.Watch to NOT_SERVING before the server goes away", async () => {
    const own = await startService();
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", own.grpcPort);
    const seen: string[] = [];
    const ended = new Promise<void>((resolve) => {
      const call = health.Watch!({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
      call.on("data", (msg) => {
        seen.push(msg.status);
        if (msg.status === "SERVING") void own.close();
      });
      call.on("error", () => resolve());
      call.on("end", () => resolve());
    });
    await ended;
    health.close();
    expect(seen[0]).toBe("SERVING");
    expect(seen).toContain("NOT_SERVING");
  });
});
