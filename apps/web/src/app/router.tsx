import { Outlet, createBrowserRouter, redirect, type LoaderFunctionArgs, type RouteObject, type UIMatch } from "react-router";
import type { SessionViewModel } from "../features/session/session-view-model";
import { SignInPage } from "../features/auth/SignInPage";
import { HomePage } from "../features/home/HomePage";
import { ErrorPage } from "../components/ErrorPage";
import { routeGuard } from "./guards";

export interface RouteHandle { name?: string }

/**
 * The route table of spec section 2, in history mode at base '/'. Every navigation runs the root
 * loader's middleware chain: route-guard, me (user refresh), language setup.
 */
export function createRoutes(session: SessionViewModel, setupLanguage: () => void = () => {}): RouteObject[] {
  const middleware = async ({ request }: LoaderFunctionArgs) => {
    const url = new URL(request.url);
    const leaf = [...routeNames].find(([pattern]) => matches(pattern, url.pathname));
    const routeName = leaf?.[1];
    // me: refresh the user once per app load (or after log in/out changes the token).
    if (session.hasToken() && (!session.loaded || !session.user)) await session.refresh();
    if (!session.hasToken() && session.user) session.logout();
    const target = routeGuard({
      routeName,
      fullPath: url.pathname + url.search,
      loggedIn: session.isLoggedIn,
      hasQuery: url.search.length > 1,
      onHostedSpace: false,
      omitCTA: url.searchParams.has("omitCTA"),
    });
    if (target && target !== url.pathname + url.search) throw redirect(target);
    setupLanguage();
    return null;
  };

  return [
    {
      id: "root",
      path: "/",
      element: <Outlet />,
      loader: middleware,
      shouldRevalidate: () => true,
      errorElement: <ErrorPage />,
      children: [
        { index: true, element: <HomePage />, handle: { name: "index" } },
        { path: "sign-in", element: <SignInPage />, handle: { name: "sign-in" } },
        { path: "*", element: <ErrorPage status={404} />, handle: { name: "not-found" } },
      ],
    },
  ];
}

/** Path patterns to route names, used by the guard before the route tree is matched. */
const routeNames = new Map<string, string>([
  ["/", "index"],
  ["/sign-in", "sign-in"],
  ["/welcome-hf-sign-in", "welcome-hf-sign-in"],
  ["/oauth/:provider/callback", "oauth-provider-callback"],
  ["/user-settings", "user-settings"],
  ["/new/:id", "new"],
  ["/dataset/:id/annotation-mode", "annotation-mode"],
  ["/dataset/:id/settings", "dataset-settings"],
]);

function matches(pattern: string, path: string): boolean {
  const a = pattern.split("/");
  const b = path.replace(/\/+$/, "").split("/");
  if (pattern === "/") return path === "/";
  return a.length === b.length && a.every((part, i) => part.startsWith(":") || part === b[i]);
}

export const createAppRouter = (session: SessionViewModel, setupLanguage?: () => void) => createBrowserRouter(createRoutes(session, setupLanguage));
export type AppMatch = UIMatch<unknown, RouteHandle>;
