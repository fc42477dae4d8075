import { describe, expect, it } from "vitest";
import { LoadUserUseCase, SignOutUseCase, User, type TokenStore } from "@tessera/domain";
import { SessionViewModel } from "./session-view-model";
import { HomeViewModel } from "../home/home-view-model";

const user = new User({ id: "1", username: "owner", firstName: "O", lastName: null, role: "owner", apiKey: "k" });
function tokens(initial: string | null): TokenStore {
  let v = initial;
  return {
    get: () => v,
    set: (t) => {
      v = t;
    },
    clear: () => {
      v = null;
    },
  };
}

describe("SessionViewModel", () => {
  it("refreshes the user when a token is stored and logs out", async () => {
    const store = tokens("t");
    const vm = new SessionViewModel(new LoadUserUseCase(store, { getMe: async () => user }), new SignOutUseCase(store));
    expect(vm.isLoggedIn).toBe(false);
    await vm.refresh();
    expect(vm.isLoggedIn).toBe(true);
    expect(vm.loaded).toBe(true);
    vm.logout();
    expect(vm.isLoggedIn).toBe(false);
    expect(store.get()).toBeNull();
  });
});

describe("HomeViewModel", () => {
  it("loads datasets and reports the empty state or a failure", async () => {
    const empty = new HomeViewModel({ execute: async () => [] } as never);
    await empty.load();
    expect(empty.isEmpty).toBe(true);
    const failing = new HomeViewModel({
      execute: async () => {
        throw new Error("x");
      },
    } as never);
    await failing.load();
    expect(failing.failed).toBe(true);
    expect(failing.isEmpty).toBe(false);
  });
});
