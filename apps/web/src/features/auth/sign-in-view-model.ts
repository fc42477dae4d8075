import { action, makeObservable, observable, runInAction } from "mobx";
import type { SignInUseCase, User } from "@tessera/domain";

export class SignInViewModel {
  username = "";
  password = "";
  submitting = false;
  /** i18n key of the error to show, or null. */
  errorKey: string | null = null;

  constructor(
    private readonly signIn: SignInUseCase,
    private readonly onSignedIn: (user: User) => void,
  ) {
    makeObservable(this, {
      username: observable,
      password: observable,
      submitting: observable,
      errorKey: observable,
      setUsername: action,
      setPassword: action,
    });
  }

  setUsername(value: string): void {
    this.username = value;
    this.errorKey = null;
  }
  setPassword(value: string): void {
    this.password = value;
    this.errorKey = null;
  }

  get canSubmit(): boolean {
    return this.username.trim().length > 0 && this.password.length > 0 && !this.submitting;
  }

  async submit(): Promise<boolean> {
    if (!this.canSubmit) return false;
    runInAction(() => {
      this.submitting = true;
      this.errorKey = null;
    });
    try {
      const user = await this.signIn.execute(this.username, this.password);
      this.onSignedIn(user);
      return true;
    } catch {
      runInAction(() => {
        this.errorKey = "signIn.wrongCredentials";
        this.password = "";
      });
      return false;
    } finally {
      runInAction(() => {
        this.submitting = false;
      });
    }
  }
}
