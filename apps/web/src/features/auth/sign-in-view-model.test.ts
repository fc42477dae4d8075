import { describe, expect, it, vi } from "vitest";
import { ErrorCode, RepositoryError, User, type SignInUseCase } from "@tessera/domain";
import { SignInViewModel } from "./sign-in-view-model";

const user = new User({ id: "1", username: "ana", firstName: "Ana", lastName: null, role: "annotator", apiKey: "k" });

describe("SignInViewModel", () => {
  it("cannot submit until both fields are filled", () => {
    const vm = new SignInViewModel({ execute: vi.fn() } as unknown as SignInUseCase, () => {});
    expect(vm.canSubmit).toBe(false);
    vm.setUsername("ana");
    expect(vm.canSubmit).toBe(false);
    vm.setPassword("pw");
    expect(vm.canSubmit).toBe(true);
  });
  it("reports the wrong-credentials key and clears the password on failure", async () => {
    const vm = new SignInViewModel(
      {
        execute: async () => {
          throw new RepositoryError(ErrorCode.ERROR_SIGNING_IN, 401);
        },
      } as unknown as SignInUseCase,
      () => {},
    );
    vm.setUsername("ana");
    vm.setPassword("bad");
    expect(await vm.submit()).toBe(false);
    expect(vm.errorKey).toBe("signIn.wrongCredentials");
    expect(vm.password).toBe("");
  });
  it("hands the user over on success", async () => {
    const onSignedIn = vi.fn();
    const vm = new SignInViewModel({ execute: async () => user } as unknown as SignInUseCase, onSignedIn);
    vm.setUsername("ana");
    vm.setPassword("good");
    expect(await vm.submit()).toBe(true);
    expect(onSignedIn).toHaveBeenCalledWith(user);
    expect(vm.errorKey).toBeNull();
  });
});
