import type { components } from "../../gen/openapi/types.js";
import { notFound } from "../errors.js";

export type Preset = components["schemas"]["Preset"];
export type PresetName = components["schemas"]["PresetName"];

/** The four presets of docs/design.md, in the order GET /presets lists them. */
export const presets: readonly Preset[] = [
  {
    name: "casual",
    description: "Quick personal record, logged only.",
    storage_mode: "local",
    encryption: "none",
    anchors: ["log"],
    trust_threshold: 2,
    generate_fp: false,
  },
  {
    name: "standard",
    description: "Everyday business documents, logged and time-stamped by a TSA.",
    storage_mode: "local",
    encryption: "none",
    anchors: ["log", "rfc3161"],
    trust_threshold: 5,
    generate_fp: false,
  },
  {
    name: "archival",
    description: "Long-term records, also anchored in Bitcoin, with a fingerprint.",
    storage_mode: "local",
    encryption: "none",
    anchors: ["log", "rfc3161", "bitcoin"],
    trust_threshold: 8,
    generate_fp: true,
  },
  {
    name: "maximum",
    description: "Every anchor stampd offers, with a fingerprint.",
    storage_mode: "local",
    encryption: "none",
    anchors: ["log", "rfc3161", "bitcoin", "ethereum"],
    trust_threshold: 12,
    generate_fp: true,
  },
];

/** The preset called `name`; 404 `preset_not_found` for any other name. */
export function getPreset(name: string): Preset {
  const preset = presets.find((p) => p.name === name);
  if (!preset) {
    throw notFound(
      `preset "${name}" not found; presets: ${presets.map((p) => p.name).join(", ")}`,
      "preset_not_found",
    );
  }
  return preset;
}
