import { getPreset, presets } from "../../presets/presets.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /presets and GET /presets/{name}. */
export function presetHandlers(): Handlers {
  return {
    listPresets: (_req, res) => {
      sendJson(res, "listPresets", 200, [...presets]);
    },
    getPreset: (req, res) => {
      sendJson(res, "getPreset", 200, getPreset(req.params.name as string));
    },
  };
}
