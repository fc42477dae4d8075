import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { RouterProvider, createMemoryRouter } from "react-router";
import { I18nextProvider } from "react-i18next";
import { createContainer, MemoryStorage } from "@tessera/infrastructure";
import { LoadUserUseCase, SignOutUseCase } from "@tessera/domain";
import { ContainerProvider } from "../../app/container-context";
import { SessionProvider } from "../session/session-context";
import { SessionViewModel } from "../session/session-view-model";
import { createI18n } from "../../i18n/i18n";
import { SignInPage } from "./SignInPage";

describe("SignInPage", () => {
  it("keeps typed values, shows the spec's error on a failed login and enables the button again", async () => {
    const fetch = (async () =>
      new Response(JSON.stringify({ detail: "x" }), {
        status: 401,
        headers: { "content-type": "application/json" },
      })) as typeof globalThis.fetch;
    const container = createContainer({ storage: new MemoryStorage(), origin: "http://app.test", fetch });
    const session = new SessionViewModel(container.resolve(LoadUserUseCase), container.resolve(SignOutUseCase));
    const router = createMemoryRouter([{ path: "/sign-in", element: <SignInPage /> }], { initialEntries: ["/sign-in"] });
    render(
      <I18nextProvider i18n={await createI18n("en")}>
        <ContainerProvider container={container}>
          <SessionProvider session={session}>
            <RouterProvider router={router} />
          </SessionProvider>
        </ContainerProvider>
      </I18nextProvider>,
    );
    const button = screen.getByRole("button", { name: "Sign in" });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "owner" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "wrong" } });
    expect((screen.getByLabelText("Username") as HTMLInputElement).value).toBe("owner");
    expect((button as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(button);
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Wrong username or password. Try again"));
  });
});
