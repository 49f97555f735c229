import { publicBaseUrl } from "../config.js";
import type { AppContext } from "../context.js";
import type { PresetName } from "../presets/presets.js";
import type { StampService } from "../stamps/stamp-service.js";
import { parseAnchorList, type StampChoices } from "../stamps/stamp-settings.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";
import { toStampResponse } from "./stamp-response.js";
import { receiveUpload, uploadLimits } from "./uploads.js";

/** POST /stamps and GET /stamps/{stamp_id}. */
export function stampHandlers(ctx: AppContext, stamps: StampService): Handlers {
  const baseUrl = publicBaseUrl(ctx.config);
  return {
    createStamp: async (req, res) => {
      const view = await receiveUpload(req, uploadLimits(ctx.config, true), (fields, file) =>
        stamps.createFromUpload(file!, {
          accountId: req.principal.accountId,
          identityId: fields.identity_id,
          ...choicesOf(fields),
        }),
      );
      res.setHeader("Location", `/stamps/${view.stamp.id}`);
      sendJson(res, "createStamp", 201, toStampResponse(view, baseUrl));
    },
    getStamp: async (req, res) => {
      const view = await stamps.get(req.params.stamp_id as string);
      sendJson(res, "getStamp", 200, toStampResponse(view, baseUrl));
    },
  };
}

/** The form's text (already checked against CreateStampForm) as stamp choices; absent stays absent. */
function choicesOf(fields: Record<string, string>): StampChoices {
  const choices: StampChoices = {};
  if (fields.preset !== undefined) choices.preset = fields.preset as PresetName;
  if (fields.anchors !== undefined) choices.anchors = parseAnchorList(fields.anchors);
  if (fields.trust_threshold !== undefined) choices.trustThreshold = Number(fields.trust_threshold);
  if (fields.generate_fp !== undefined) choices.generateFp = fields.generate_fp === "true";
  if (fields.version !== undefined) choices.version = fields.version;
  return choices;
}
