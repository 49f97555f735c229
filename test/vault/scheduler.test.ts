import { sqlite } from "../store/engines.js";
import { schedulerSuite } from "./scheduler-suite.js";

schedulerSuite(sqlite);
