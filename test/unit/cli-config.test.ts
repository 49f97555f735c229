import { describe, expect, it } from "vitest";
import { maskedConfig } from "../../cli/commands/config.js";

describe("stampd config", () => {
  it("lists every setting, unset ones as null, with URL passwords masked", () => {
    const shown = maskedConfig({
      DATABASE_URL: "postgres://app:hunter2@db.internal:5432/stampd",
      PORT: "9000",
    });
    expect(shown.PORT).toBe(9000);
    expect(shown.REDIS_URL).toBeNull();
    expect(shown.DATABASE_URL).toBe("postgres://app:****@db.internal:5432/stampd");
    expect(JSON.stringify(shown)).not.toContain("hunter2");
  });

  it("masks the at-rest key command, whose line may carry a secret manager's token", () => {
    const shown = maskedConfig({
      AT_REST_KEY_COMMAND: "vault kv get -field=key -token=s.hunter2 secret/stampd",
    });
    expect(shown.AT_REST_KEY_COMMAND).toBe("****");
    expect(JSON.stringify(shown)).not.toContain("hunter2");
  });
});
