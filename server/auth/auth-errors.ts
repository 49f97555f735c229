import { ServiceError } from "../errors.js";

/** A presented key that is malformed, unknown or revoked: one answer, so none can be told apart. */
export const invalidApiKey = () =>
  new ServiceError("unauthenticated", "API key is not valid", "invalid_api_key");

export const missingApiKey = () =>
  new ServiceError(
    "unauthenticated",
    "this operation requires an API key (Authorization: Bearer or X-API-Key)",
    "missing_api_key",
  );
