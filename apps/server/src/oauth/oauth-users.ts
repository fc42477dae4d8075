import { randomUUID } from "node:crypto";
import type { Insertable, Kysely } from "kysely";
import type { DB, UsersTable } from "../db/schema.js";
import { hashPassword } from "../auth/passwords.js";
import { generatePassword } from "../auth/secrets.js";
import { newApiKey } from "../auth/api-keys.js";
import { now } from "../clock.js";
import type { HostedSpace, OAuthConfig } from "./oauth-config.js";
import type { ProviderIdentity } from "./provider-client.js";

export type Role = UsersTable["role"];

/**
 * Role of a new OAuth user (hub.md 3.5): `owner` when the username is the space author's; when the
 * author is an organisation the user belongs to, `owner` for its admins and `annotator` otherwise;
 * everyone else (and everyone outside a space) is an `annotator`.
 */
export function roleFor(identity: ProviderIdentity, space: HostedSpace | null): Role {
  const author = space?.authorName?.toLowerCase();
  if (!author) return "annotator";
  if (identity.username?.toLowerCase() === author) return "owner";
  const org = identity.orgs.find((o) => o.preferredUsername?.toLowerCase() === author || o.name?.toLowerCase() === author);
  return org?.roleInOrg === "admin" ? "owner" : "annotator";
}

/** Usernames Tessera accepts (same rule as POST /users). */
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9-_]*$/;

export class OAuthUserError extends Error {
  constructor(
    readonly status: 401 | 409,
    message: string,
  ) {
    super(message);
  }
}

export type OAuthUser = Pick<UsersTable, "id" | "username" | "first_name" | "role"> & { session_version: number };

/**
 * Finds the user linked to the provider identity, or creates one (random password, API key,
 * configured workspaces). An existing local account with the same username is only linked when it
 * is the space author's or when `linkExistingUsers` is on, so that a stranger who picks a local
 * username at the provider cannot take the account over.
 */
export async function findOrCreateOAuthUser(
  db: Kysely<DB>,
  provider: string,
  identity: ProviderIdentity,
  config: OAuthConfig,
  space: HostedSpace | null,
): Promise<OAuthUser> {
  const linked = await db
    .selectFrom("oauth_identities")
    .innerJoin("users", "users.id", "oauth_identities.user_id")
    .select(["users.id", "users.username", "users.first_name", "users.role", "users.session_version"])
    .where("oauth_identities.provider", "=", provider)
    .where("oauth_identities.subject", "=", identity.subject)
    .executeTakeFirst();
  if (linked) return linked;

  const username = identity.username;
  if (!username || !USERNAME.test(username) || username.length > 200) {
    throw new OAuthUserError(401, "The OAuth provider did not return a usable username");
  }
  const timestamp = now();
  const existing = await db
    .selectFrom("users")
    .select(["id", "username", "first_name", "role", "session_version"])
    .where("username", "=", username)
    .executeTakeFirst();
  if (existing) {
    const isSpaceAuthor = !!space?.authorName && space.authorName.toLowerCase() === username.toLowerCase();
    if (!isSpaceAuthor && !config.linkExistingUsers) {
      throw new OAuthUserError(
        409,
        `A user named '${username}' already exists and is not linked to this ${provider} account. Sign in with that account's password.`,
      );
    }
    await db
      .insertInto("oauth_identities")
      .values({ provider, subject: identity.subject, user_id: existing.id, inserted_at: timestamp })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return existing;
  }

  const user: Insertable<UsersTable> & { id: string; username: string; first_name: string; role: UsersTable["role"] } = {
    id: randomUUID(),
    username,
    first_name: identity.name ?? username,
    last_name: null,
    role: roleFor(identity, space),
    password_hash: await hashPassword(generatePassword()),
    api_key: newApiKey().stored,
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  try {
    await createLinkedUser(db, provider, identity, config, user, timestamp);
  } catch (error) {
    // Two first sign-ins of the same person at once: the other one created the user; use it.
    const raced = await db
      .selectFrom("oauth_identities")
      .innerJoin("users", "users.id", "oauth_identities.user_id")
      .select(["users.id", "users.username", "users.first_name", "users.role", "users.session_version"])
      .where("oauth_identities.provider", "=", provider)
      .where("oauth_identities.subject", "=", identity.subject)
      .executeTakeFirst();
    if (raced) return raced;
    if (String((error as { code?: unknown }).code ?? "").includes("CONSTRAINT")) {
      throw new OAuthUserError(409, `A user named '${username}' already exists. Sign in with that account's password.`);
    }
    throw error;
  }
  return { id: user.id, username: user.username, first_name: user.first_name, role: user.role, session_version: 0 };
}

async function createLinkedUser(
  db: Kysely<DB>,
  provider: string,
  identity: ProviderIdentity,
  config: OAuthConfig,
  user: Insertable<UsersTable> & { id: string },
  timestamp: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("users").values(user).execute();
    await trx
      .insertInto("oauth_identities")
      .values({ provider, subject: identity.subject, user_id: user.id, inserted_at: timestamp })
      .execute();
    if (config.workspaces.length > 0) {
      const workspaces = await trx.selectFrom("workspaces").select("id").where("name", "in", config.workspaces).execute();
      for (const w of workspaces) {
        await trx.insertInto("workspaces_users").values({ workspace_id: w.id, user_id: user.id, inserted_at: timestamp }).execute();
      }
    }
  });
}
