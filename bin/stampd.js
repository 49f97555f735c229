#!/usr/bin/env node
// The `stampd` command. The CLI is TypeScript run through tsx, like the server.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
