import { sqlite } from "../store/engines.js";
import { lifecycleSuite } from "./lifecycle-suite.js";

lifecycleSuite(sqlite);
