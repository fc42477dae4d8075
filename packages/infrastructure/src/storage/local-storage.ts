import type { TokenStore } from "@tessera/domain";

/** Spec section 1: one JSON object under a single product key; developer toggles apart; auth keys prefixed 'auth.'. */
export const PRODUCT_STORAGE_KEY = "tessera";
export const DEVELOPER_TOGGLES_KEY = "tessera.developer-toggles";
export const AUTH_PREFIX = "auth.";

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** In-memory storage for environments without window.localStorage (tests, server rendering). */
export class MemoryStorage implements KeyValueStorage {
  private readonly map = new Map<string, string>();
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
}

/** The product's single local-storage object. */
export class ProductStorage {
  constructor(private readonly storage: KeyValueStorage) {}

  private read(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(this.storage.getItem(PRODUCT_STORAGE_KEY) ?? "{}");
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  get<T = unknown>(key: string): T | undefined {
    return this.read()[key] as T | undefined;
  }

  set(key: string, value: unknown): void {
    const next = this.read();
    if (value === undefined) delete next[key];
    else next[key] = value;
    this.storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify(next));
  }
}

/** The access token lives in the product object under 'auth.token'. */
export class LocalTokenStore implements TokenStore {
  constructor(private readonly storage: ProductStorage) {}
  get(): string | null {
    return this.storage.get<string>(`${AUTH_PREFIX}token`) ?? null;
  }
  set(token: string): void {
    this.storage.set(`${AUTH_PREFIX}token`, token);
  }
  clear(): void {
    this.storage.set(`${AUTH_PREFIX}token`, undefined);
  }
}

/** Developer feature toggles, kept apart from the product object under their own key. */
export class DeveloperToggles {
  constructor(private readonly storage: KeyValueStorage) {}

  private read(): { [name: string]: boolean } {
    try {
      const parsed: unknown = JSON.parse(this.storage.getItem(DEVELOPER_TOGGLES_KEY) ?? "{}");
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as { [name: string]: boolean }) : {};
    } catch {
      return {};
    }
  }

  isEnabled(name: string): boolean {
    return this.read()[name] === true;
  }

  set(name: string, enabled: boolean): void {
    this.storage.setItem(DEVELOPER_TOGGLES_KEY, JSON.stringify({ ...this.read(), [name]: enabled }));
  }
}
