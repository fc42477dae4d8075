import { describe, expect, it } from "vitest";
import { User } from "@tessera/domain";
import { createI18n } from "../i18n/i18n";
import { persistentStorageWarning } from "./persistent-storage";

const user = (role: "owner" | "admin" | "annotator") =>
  new User({ id: "1", username: "u", firstName: "", lastName: null, role, apiKey: "k" });
const space = {
  id: "me/space",
  title: "S",
  subdomain: "me-space",
  host: "me-space.hf.space",
  repoName: "space",
  authorName: "me",
  persistentStorageEnabled: false,
};

describe("persistent-storage warning", () => {
  it("is shown only when the server asks for it, permanent, worded by role", async () => {
    const i18n = await createI18n("en");
    const t = (k: string, v?: Record<string, string>) => i18n.t(k, v ?? {});
    expect(persistentStorageWarning({ hostedSpace: space, showPersistentStorageWarning: false }, user("owner"), t)).toBeNull();
    const admin = persistentStorageWarning({ hostedSpace: space, showPersistentStorageWarning: true }, user("admin"), t)!;
    const annotator = persistentStorageWarning({ hostedSpace: space, showPersistentStorageWarning: true }, user("annotator"), t)!;
    expect(admin).toMatchObject({ type: "warning", permanent: true });
    expect(admin.message).toContain("https://huggingface.co/spaces/me/space/settings");
    expect(admin.message).toContain("space settings");
    expect(annotator.message).toContain("Persistent storage is not enabled");
    expect(annotator.message).not.toContain("settings");
  });
});
