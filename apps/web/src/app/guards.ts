import { signInPathFor } from "../features/auth/redirect";

export interface GuardInput {
  routeName: string | undefined;
  /** pathname + search of the wanted location. */
  fullPath: string;
  loggedIn: boolean;
  hasQuery: boolean;
  /** True when the app runs on the hub-hosted space. */
  onHostedSpace: boolean;
  omitCTA: boolean;
}

/** The route guard of spec section 2: where to send the visitor instead, or null to let them in. */
export function routeGuard(input: GuardInput): string | null {
  switch (input.routeName) {
    case undefined:
      // An unmatched path shows the 404 page to everyone.
      return null;
    case "sign-in":
      if (input.loggedIn) return "/";
      if (input.onHostedSpace && !input.omitCTA) return "/welcome-hf-sign-in";
      return null;
    case "oauth-provider-callback":
      return input.hasQuery ? null : "/";
    case "welcome-hf-sign-in":
      return input.loggedIn || !input.onHostedSpace ? "/" : null;
    default:
      return input.loggedIn ? null : signInPathFor(input.fullPath);
  }
}
