import type { UserRow } from "../auth/authenticate.js";
import { userOut } from "../http/serializers.js";

/**
 * A user as another user may see them. API keys are stored as digests and shown only once, when
 * created or rotated (auth/api-keys.ts), so no listing carries one: an admin listing workspace
 * members cannot collect keys (docs/security.md). The SDK's user model has no `api_key` field.
 */
export function userVisibleTo(_caller: UserRow, user: UserRow): ReturnType<typeof userOut> {
  return userOut(user);
}
