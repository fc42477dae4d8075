import { Suspense, type ReactNode } from "react";
import { Outlet, createBrowserRouter, matchRoutes, redirect, type LoaderFunctionArgs, type RouteObject } from "react-router";
import type { SessionViewModel } from "../features/session/session-view-model";
import { SignInPage } from "../features/auth/SignInPage";
import { WelcomeHfSignInPage } from "../features/oauth/WelcomeHfSignInPage";
import { OAuthCallbackPage } from "../features/oauth/OAuthCallbackPage";
import { HomePage } from "../features/home/HomePage";
import { ErrorPage } from "../components/ErrorPage";
import { PageLoading } from "../components/PageLoading";
import { AppShell } from "./AppShell";
import { routeGuard } from "./guards";
import { lazyPage, registerPrefetch, type LazyPage } from "./lazy-page";
import { ROUTE_NAMES } from "./routes";

export interface RouteHandle {
  name?: string;
}

/** The big pages are separate code chunks, prefetched when a link to them becomes visible. */
export const pages = {
  datasetCreation: lazyPage(() => import("../features/dataset-creation/DatasetCreationPage").then((m) => m.DatasetCreationPage)),
  fileDatasetCreation: lazyPage(() => import("../features/transfer/upload/FileDatasetCreationPage").then((m) => m.FileDatasetCreationPage)),
  annotation: lazyPage(() => import("../features/annotation/AnnotationPage").then((m) => m.AnnotationPage)),
  datasetSettings: lazyPage(() => import("../features/dataset-settings/DatasetSettingsPage").then((m) => m.DatasetSettingsPage)),
  userSettings: lazyPage(() => import("../features/user-settings/UserSettingsPage").then((m) => m.UserSettingsPage)),
  agreement: lazyPage(() => import("../features/review/AgreementPage").then((m) => m.AgreementPage)),
  review: lazyPage(() => import("../features/review/ReviewPage").then((m) => m.ReviewPage)),
};

function lazyElement(Page: LazyPage): ReactNode {
  return (
    <Suspense fallback={<PageLoading />}>
      <Page />
    </Suspense>
  );
}

export interface MiddlewareDeps {
  session: SessionViewModel;
  /** True when the app runs on the hub-hosted space (from GET /v1/settings). */
  onHostedSpace: () => Promise<boolean>;
  /** The 'language setup' middleware. */
  setupLanguage: () => Promise<void> | void;
}

/** The route table of spec section 2 (history mode, base '/'). */
export function routeTable(): RouteObject[] {
  const r = (path: string, name: string, element: ReactNode, pattern: string, preload?: () => Promise<unknown>): RouteObject => {
    if (preload) registerPrefetch(pattern, preload);
    return { path, element, handle: { name } satisfies RouteHandle };
  };
  return [
    { index: true, element: <HomePage />, handle: { name: ROUTE_NAMES.index } },
    r("sign-in", ROUTE_NAMES.signIn, <SignInPage />, "/sign-in"),
    r("welcome-hf-sign-in", ROUTE_NAMES.welcomeHfSignIn, <WelcomeHfSignInPage />, "/welcome-hf-sign-in"),
    r(
      "new-from-file",
      ROUTE_NAMES.newFromFile,
      lazyElement(pages.fileDatasetCreation),
      "/new-from-file",
      pages.fileDatasetCreation.preload,
    ),
    r("new/:id?", ROUTE_NAMES.newDataset, lazyElement(pages.datasetCreation), "/new/:id?", pages.datasetCreation.preload),
    r(
      "dataset/:id?/annotation-mode",
      ROUTE_NAMES.annotation,
      lazyElement(pages.annotation),
      "/dataset/:id?/annotation-mode",
      pages.annotation.preload,
    ),
    r(
      "dataset/:id?/settings",
      ROUTE_NAMES.datasetSettings,
      lazyElement(pages.datasetSettings),
      "/dataset/:id?/settings",
      pages.datasetSettings.preload,
    ),
    r("dataset/:id/agreement", ROUTE_NAMES.agreement, lazyElement(pages.agreement), "/dataset/:id/agreement", pages.agreement.preload),
    r("dataset/:id/review", ROUTE_NAMES.review, lazyElement(pages.review), "/dataset/:id/review", pages.review.preload),
    r("oauth/:provider?/callback", ROUTE_NAMES.oauthCallback, <OAuthCallbackPage />, "/oauth/:provider?/callback"),
    r("user-settings", ROUTE_NAMES.userSettings, lazyElement(pages.userSettings), "/user-settings", pages.userSettings.preload),
    // Catch-all single segment: a URL-encoded hub repo id; it imports that dataset from the hub (the creation page).
    r(":id", ROUTE_NAMES.hubRepo, lazyElement(pages.datasetCreation), "/:id", pages.datasetCreation.preload),
    { path: "*", element: <ErrorPage status={404} /> },
  ];
}

/** The route name a path resolves to, or undefined for an unmatched path (404). */
export function routeNameFor(pathname: string, children: RouteObject[] = routeTable()): string | undefined {
  const matches = matchRoutes([{ path: "/", children }], pathname);
  const leaf = matches?.[matches.length - 1];
  return ((leaf?.route as RouteObject | undefined)?.handle as RouteHandle | undefined)?.name;
}

/** Every navigation runs the middleware chain of spec section 2: route-guard (with 'me', the user refresh) and language setup. */
export function createRoutes(deps: MiddlewareDeps): RouteObject[] {
  const children = routeTable();
  const middleware = async ({ request }: LoaderFunctionArgs) => {
    const url = new URL(request.url);
    const routeName = routeNameFor(url.pathname, children);
    // me: refresh the user once per app load (or after log in/out changes the token).
    const { session } = deps;
    if (session.hasToken() && (!session.loaded || !session.user)) await session.refresh();
    if (!session.hasToken() && session.user) session.logout();
    const needsSpace = routeName === ROUTE_NAMES.signIn || routeName === ROUTE_NAMES.welcomeHfSignIn;
    const target = routeGuard({
      routeName,
      fullPath: url.pathname + url.search,
      loggedIn: session.isLoggedIn,
      hasQuery: url.search.length > 1,
      onHostedSpace: needsSpace ? await deps.onHostedSpace() : false,
      omitCTA: url.searchParams.has("omitCTA"),
    });
    if (target && target !== url.pathname + url.search) throw redirect(target);
    await deps.setupLanguage();
    return null;
  };

  return [
    {
      id: "root",
      path: "/",
      element: (
        <AppShell>
          <Outlet />
        </AppShell>
      ),
      loader: middleware,
      shouldRevalidate: () => true,
      errorElement: (
        <AppShell>
          <ErrorPage />
        </AppShell>
      ),
      hydrateFallbackElement: <PageLoading />,
      children,
    },
  ];
}

export const createAppRouter = (deps: MiddlewareDeps) => createBrowserRouter(createRoutes(deps));
