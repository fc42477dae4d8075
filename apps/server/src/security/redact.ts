import type { UserRow } from "../auth/authenticate.js";
import { userOut } from "../http/serializers.js";

/**
 * A user as another user may see them: the API key is a credential, so only its holder and the
 * owner (who manages users) see it. An admin listing workspace members would otherwise collect
 * keys of everyone in the workspace, owners included (docs/security.md). The SDK's user model has
 * no `api_key` field, so leaving it out breaks nothing.
 */
export function userVisibleTo(caller: UserRow, user: UserRow): Omit<ReturnType<typeof userOut>, "api_key"> & { api_key?: string } {
  const out: ReturnType<typeof userOut> = userOut(user);
  if (caller.role === "owner" || caller.id === user.id) return out;
  const { api_key: _hidden, ...rest } = out;
  return rest;
}
