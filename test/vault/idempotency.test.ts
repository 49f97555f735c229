import { sqlite } from "../store/engines.js";
import { idempotencySuite } from "./idempotency-suite.js";

idempotencySuite(sqlite);
