import { describe, expect, it } from "vitest";
import {
  DEVELOPER_TOGGLES_KEY,
  DeveloperToggles,
  LocalTokenStore,
  MemoryStorage,
  PRODUCT_STORAGE_KEY,
  ProductStorage,
} from "./local-storage.js";

describe("local storage (spec section 1)", () => {
  it("keeps one product JSON object, auth keys prefixed 'auth.', and developer toggles apart", () => {
    const storage = new MemoryStorage();
    const product = new ProductStorage(storage);
    product.set("theme", "dark");
    new LocalTokenStore(product).set("jwt");
    const toggles = new DeveloperToggles(storage);
    toggles.set("newQueue", true);
    expect(JSON.parse(storage.getItem(PRODUCT_STORAGE_KEY)!)).toEqual({ theme: "dark", "auth.token": "jwt" });
    expect(JSON.parse(storage.getItem(DEVELOPER_TOGGLES_KEY)!)).toEqual({ newQueue: true });
    expect([toggles.isEnabled("newQueue"), toggles.isEnabled("other")]).toEqual([true, false]);
    storage.setItem(DEVELOPER_TOGGLES_KEY, "not json");
    expect(toggles.isEnabled("newQueue")).toBe(false);
    storage.setItem(PRODUCT_STORAGE_KEY, "[1]");
    expect(product.get("theme")).toBeUndefined();
  });
});
