import { sqlite } from "../store/engines.js";
import { feesSuite } from "./fees-suite.js";

feesSuite(sqlite);
