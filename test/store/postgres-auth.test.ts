import { apiKeysSuite } from "../auth/api-keys-suite.js";
import { idempotencySuite } from "../vault/idempotency-suite.js";
import { postgres } from "./engines.js";

apiKeysSuite(postgres);
idempotencySuite(postgres);
