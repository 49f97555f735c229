import { missingApiKey } from "../../auth/auth-errors.js";
import type { IdentityService } from "../../identities/identity-service.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** POST /identity (needs a key: the identity belongs to its account) and GET /identity/{identity_id}. */
export function identityHandlers(identities: IdentityService): Handlers {
  return {
    createIdentity: async (req, res) => {
      const accountId = req.principal.accountId;
      if (accountId === null) throw missingApiKey();
      const identity = await identities.create(accountId);
      res.setHeader("Location", `/identity/${identity.identity_id}`);
      sendJson(res, "createIdentity", 201, identity);
    },
    getIdentity: async (req, res) => {
      sendJson(res, "getIdentity", 200, await identities.info(req.params.identity_id as string));
    },
  };
}
