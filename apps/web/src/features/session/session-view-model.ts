import { action, computed, makeObservable, observable, observableRef, runInAction } from "mobx";
import type { LoadUserUseCase, SignOutUseCase, User } from "@tessera/domain";

/** The signed-in user for the whole app: loaded by the 'me' middleware, cleared on log out. */
export class SessionViewModel {
  user: User | null = null;
  loaded = false;

  constructor(
    private readonly loadUser: LoadUserUseCase,
    private readonly signOut: SignOutUseCase,
  ) {
    makeObservable(this, { user: observableRef, loaded: observable, isLoggedIn: computed, setUser: action, logout: action });
  }

  get isLoggedIn(): boolean {
    return this.user !== null;
  }

  /** True when a token is stored (the route guard's cheap check before /me answers). */
  hasToken(): boolean {
    return this.loadUser.isLoggedIn();
  }

  async refresh(): Promise<User | null> {
    const user = await this.loadUser.execute().catch(() => this.user);
    runInAction(() => {
      this.user = user;
      this.loaded = true;
    });
    return user;
  }

  setUser(user: User): void {
    this.user = user;
    this.loaded = true;
  }

  logout(): void {
    this.signOut.execute();
    this.user = null;
  }
}
