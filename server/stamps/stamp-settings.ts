import type { AnchorType } from "../../core/types.js";
import { anchorTypes } from "../../gen/openapi/enums.js";
import { invalid } from "../errors.js";
import { getPreset, type PresetName } from "../presets/presets.js";

// Defined once, in core/; the stamps domain's users find it here too.
export type { AnchorType };

/** What a client may choose when stamping; anything left out comes from the preset or the defaults. */
export interface StampChoices {
  preset?: PresetName;
  anchors?: AnchorType[];
  trustThreshold?: number;
  generateFp?: boolean;
  version?: string;
}

/** The settings a stamp is made with, after resolution. */
export interface StampSettings {
  preset: PresetName | null;
  anchors: AnchorType[];
  trustThreshold: number;
  generateFp: boolean;
  version: string;
  storageMode: "local";
  encryption: "none";
}

const defaults = { anchors: [] as AnchorType[], trustThreshold: 5, generateFp: false, version: "1.0.0" };

/** Explicit choice > preset > defaults (the spec's `POST /stamps` field resolution). */
export function resolveSettings(choices: StampChoices): StampSettings {
  const preset = choices.preset ? getPreset(choices.preset) : undefined;
  return {
    preset: choices.preset ?? null,
    anchors: choices.anchors ?? [...(preset?.anchors ?? defaults.anchors)],
    trustThreshold: choices.trustThreshold ?? preset?.trust_threshold ?? defaults.trustThreshold,
    generateFp: choices.generateFp ?? preset?.generate_fp ?? defaults.generateFp,
    version: choices.version ?? defaults.version,
    storageMode: preset?.storage_mode ?? "local",
    encryption: preset?.encryption ?? "none",
  };
}

/**
 * A comma-separated anchor list (`log, bitcoin`): spaces around commas are ignored, repeats
 * collapse, first occurrence keeps its place; an unknown type is a 400.
 */
export function parseAnchorList(text: string): AnchorType[] {
  const anchors: AnchorType[] = [];
  for (const item of text.split(",").map((s) => s.trim())) {
    if (!(anchorTypes as readonly string[]).includes(item)) {
      throw invalid(`unknown anchor type ${JSON.stringify(item)}; allowed: ${anchorTypes.join(", ")}`);
    }
    if (!anchors.includes(item as AnchorType)) anchors.push(item as AnchorType);
  }
  return anchors;
}
