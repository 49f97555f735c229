import { schedulerSuite } from "../vault/scheduler-suite.js";
import { postgres } from "./engines.js";

schedulerSuite(postgres);
