/** The query parameter that remembers where a signed-out visitor wanted to go. */
export const REDIRECT_PARAM = "redirect";

/** Spec section 2: the full wanted path is remembered unless it is '/'. */
export function signInPathFor(fullPath: string): string {
  if (!fullPath || fullPath === "/") return "/sign-in";
  return `/sign-in?${new URLSearchParams({ [REDIRECT_PARAM]: fullPath }).toString()}`;
}

/** Where to go after login: the remembered path when it is a local path, else home. */
export function redirectTarget(search: string): string {
  const target = new URLSearchParams(search).get(REDIRECT_PARAM);
  if (!target || !target.startsWith("/") || target.startsWith("//") || target.startsWith("/sign-in")) return "/";
  return target;
}
