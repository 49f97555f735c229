import type { Interceptor } from "@connectrpc/connect";
import { Health } from "../../gen/proto/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../../gen/proto/grpc/reflection/v1/reflection_pb.js";
import type { Authenticator } from "../auth/authenticator.js";
import { peerAddressKey, principalKey } from "./context-keys.js";

// Probes and generic tools call these without keys; a stale key there must not fail a health check.
const open = new Set([Health.typeName, ServerReflection.typeName]);

/**
 * Resolves the caller from the `authorization: Bearer` / `x-api-key` metadata (or, without a key,
 * the peer address, believing forwarding headers from trusted proxies only) exactly as REST does,
 * and puts the principal in the call's context values. A presented key that is not valid fails the
 * call with UNAUTHENTICATED (the error interceptor maps the domain error), never anonymous access.
 */
export function authInterceptor(auth: Authenticator): Interceptor {
  return (next) => async (req) => {
    if (open.has(req.service.typeName)) return next(req);
    const principal = await auth.resolvePrincipal({
      authorization: req.header.get("authorization") ?? undefined,
      apiKey: req.header.get("x-api-key") ?? undefined,
      forwardedFor: req.header.get("x-forwarded-for") ?? undefined,
      realIp: req.header.get("x-real-ip") ?? undefined,
      peerAddress: req.contextValues.get(peerAddressKey) || undefined,
    });
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
}
