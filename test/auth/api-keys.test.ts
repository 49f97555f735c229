import { sqlite } from "../store/engines.js";
import { apiKeysSuite } from "./api-keys-suite.js";

apiKeysSuite(sqlite);
