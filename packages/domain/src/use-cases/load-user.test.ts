import { describe, expect, it } from "vitest";
import { LoadUserUseCase } from "./load-user.js";
import { User } from "../entities/user.js";
import { ErrorCode, RepositoryError } from "../errors/error-codes.js";

const user = new User({ id: "u1", username: "owner", firstName: "", lastName: null, role: "owner", apiKey: "k" });
function tokens(initial: string | null) {
  let value = initial;
  return {
    get: () => value,
    set: (t: string) => {
      value = t;
    },
    clear: () => {
      value = null;
    },
  };
}

describe("LoadUserUseCase", () => {
  it("returns null without calling the server when there is no token", async () => {
    let called = false;
    const uc = new LoadUserUseCase(tokens(null), {
      getMe: async () => {
        called = true;
        return user;
      },
    });
    expect(await uc.execute()).toBeNull();
    expect(called).toBe(false);
  });
  it("returns the user when the token is valid", async () => {
    expect((await new LoadUserUseCase(tokens("t"), { getMe: async () => user }).execute())?.username).toBe("owner");
  });
  it("logs out on a 401", async () => {
    const store = tokens("t");
    const uc = new LoadUserUseCase(store, {
      getMe: async () => {
        throw new RepositoryError(ErrorCode.ERROR_FETCHING_USER, 401);
      },
    });
    expect(await uc.execute()).toBeNull();
    expect(store.get()).toBeNull();
  });
  it("re-throws other failures and keeps the token", async () => {
    const store = tokens("t");
    const uc = new LoadUserUseCase(store, {
      getMe: async () => {
        throw new RepositoryError(ErrorCode.ERROR_FETCHING_USER, 500);
      },
    });
    await expect(uc.execute()).rejects.toBeInstanceOf(RepositoryError);
    expect(store.get()).toBe("t");
  });
});
