import type { components } from "../../gen/openapi/types.js";

export type FingerprintDocument = components["schemas"]["FingerprintDocument"];
export type FingerprintResponse = components["schemas"]["FingerprintResponse"];
export type DecompositionMethod = components["schemas"]["DecompositionMethod"];
export type ShadowTransform = components["schemas"]["ShadowTransform"];
export type FineShadows = components["schemas"]["FineShadows"];
export type ShadowScale = components["schemas"]["ShadowScale"];
export type ProofType = components["schemas"]["ProofType"];

export const FINGERPRINT_FORMAT = "stampd.fingerprint/v1";
