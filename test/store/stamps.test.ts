import { engines } from "./engines.js";
import { stampsSuite } from "./stamps-suite.js";

for (const engine of engines) stampsSuite(engine);
