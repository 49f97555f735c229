import { formatContentHash, parseContentHashText } from "../../../core/content-hash.js";
import type { components } from "../../../gen/openapi/types.js";
import { publicBaseUrl } from "../../config.js";
import type { AppContext } from "../../context.js";
import { invalid } from "../../errors.js";
import { contentHashArgument } from "../../hashing/content-hash-argument.js";
import type { PresetName } from "../../presets/presets.js";
import { DEFAULT_SEARCH_LIMIT, type HashSearch, type StampSearch } from "../../stamps/stamp-search.js";
import {
  type HashStampRequest,
  type StampService,
  type UploadDigest,
  type UploadReadSettings,
  uploadReadSettings,
} from "../../stamps/stamp-service.js";
import { parseAnchorList, type StampChoices } from "../../stamps/stamp-settings.js";
import type { StampView } from "../../stamps/stamp-view.js";
import { type FormFields, receiveUpload, type UploadOperation, uploadLimits } from "../uploads/uploads.js";
import { toStampResponse } from "../views/stamp-response.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

type StampHashRequest = components["schemas"]["StampHashRequest"];

/** POST /stamps, GET /stamps?hash= and GET /stamps/{stamp_id}. */
export function stampHandlers(ctx: AppContext, stamps: StampService, search: StampSearch): Handlers {
  const baseUrl = publicBaseUrl(ctx.config);
  return {
    createStamp: async (req, res) => {
      const accountId = req.principal.accountId;
      const view = req.is("application/json")
        ? await stamps.createFromHash(hashStamp(req.body as StampHashRequest, req.query, accountId))
        : await receiveUpload(req, uploadLimits(ctx.config, true), stampUpload(stamps, accountId));
      res.setHeader("Location", `/stamps/${view.stamp.id}`);
      sendJson(res, "createStamp", 201, toStampResponse(view, baseUrl));
    },
    searchStamps: async (req, res) => {
      const query = searchQuery(req.query as Record<string, string | undefined>);
      const page = await search.byHash(query);
      sendJson(res, "searchStamps", 200, {
        hash: formatContentHash(page.hash),
        items: page.matches.map((match) => ({
          stamp_id: match.id,
          created_at: match.createdAt,
          verify_url: `${baseUrl}/verify/${match.id}`,
        })),
        limit: query.limit,
        next_cursor: page.nextCursor,
      });
    },
    getStamp: async (req, res) => {
      const view = await stamps.get(req.params.stamp_id as string);
      sendJson(res, "getStamp", 200, toStampResponse(view, baseUrl));
    },
  };
}

/**
 * POST /stamps as an upload: the file is read for its SHA3-256 (and fingerprint with
 * `generate_fp`); the stamp is made once the whole form is in. Only `generate_fp` and `preset`
 * change the reading: when neither can still change it (`generate_fp` already sent) it is final,
 * otherwise the file is read without a fingerprint and spooled, for a `generate_fp` or a preset
 * that turns it on arriving after the file. An identity named before the file is checked first.
 */
function stampUpload(
  stamps: StampService,
  accountId: string | null,
): UploadOperation<UploadReadSettings, UploadDigest, StampView> {
  return {
    async start(known) {
      if (known.identity_id !== undefined)
        await stamps.checkCaller({ accountId, identityId: known.identity_id });
    },
    plan: (known) => ({
      settings: uploadReadSettings(choicesOf(known)),
      certain: known.generate_fp !== undefined,
    }),
    settings: (fields) => uploadReadSettings(choicesOf(fields)),
    read: (file, settings) => stamps.readUpload(file, settings),
    reuse(digest, readWith, final) {
      if (readWith.generateFp === final.generateFp) return digest;
      // A fingerprint not asked for is dropped; one asked for but not made needs a second read.
      return final.generateFp ? null : { ...digest, fingerprint: null };
    },
    finish: (fields, upload) =>
      stamps.createFromUpload(upload!.digest, {
        accountId,
        identityId: fields.identity_id,
        ...choicesOf(fields),
      }),
  };
}

/**
 * POST /stamps with a JSON body: a stamp of the hash the caller computed (the landing page's, made
 * in the browser), the document never sent. The other choices come from the query as for a form;
 * `preset` and `generate_fp` are refused rather than half applied, since a preset may ask for a
 * fingerprint and there is no document to fingerprint.
 */
function hashStamp(
  body: StampHashRequest,
  query: Record<string, unknown>,
  accountId: string | null,
): HashStampRequest {
  const fields: FormFields = {};
  for (const [name, value] of Object.entries(query)) if (value !== undefined) fields[name] = String(value);
  const misplaced = ["preset", "generate_fp"].filter((name) => fields[name] !== undefined);
  if (misplaced.length > 0) {
    const why = "only to an uploaded document; a JSON body stamps a hash alone";
    const verb = misplaced.length > 1 ? "apply" : "applies";
    throw invalid(
      `${misplaced.join(" and ")} ${verb} ${why}`,
      misplaced.map((name) => ({ path: `/query/${name}`, message: `applies ${why}` })),
    );
  }
  return {
    accountId,
    identityId: fields.identity_id,
    contentHash: contentHashArgument(body.hash, "hash"),
    ...choicesOf(fields),
  };
}

/** The query of GET /stamps, already checked against the spec (hash pattern, limit, cursor). */
function searchQuery(query: Record<string, string | undefined>): HashSearch {
  return {
    hash: parseContentHashText(query.hash!, "hash"),
    limit: query.limit === undefined ? DEFAULT_SEARCH_LIMIT : Number(query.limit),
    cursor: query.cursor,
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
