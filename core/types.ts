import type { components } from "../gen/openapi/types.js";

export type StampDocument = components["schemas"]["StampDocument"];
export type AnchorState = components["schemas"]["AnchorState"];
export type AnchorType = components["schemas"]["AnchorType"];
export type HashAlgorithm = components["schemas"]["HashAlgorithm"];
export type VerifyResult = components["schemas"]["VerifyResponse"];
export type VerifyDetails = components["schemas"]["VerifyDetails"];
export type StampStatus = components["schemas"]["StampStatus"];
