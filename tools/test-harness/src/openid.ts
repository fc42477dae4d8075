import { Events, OAuth2Server } from "oauth2-mock-server";

/**
 * A local OpenID provider (oauth2-mock-server) on loopback standing in for huggingface.co: whoever `user()`
 * returns at the time is the one its /authorize "authenticates" (`sub` in the token, the whole object as
 * userinfo). Its token endpoint does not URL-decode Basic credentials, so client ids must not contain '-'.
 */
export async function startOpenIdProvider<User extends { sub: string }>(user: () => User): Promise<OAuth2Server> {
  const provider = new OAuth2Server();
  await provider.issuer.keys.generate("RS256");
  await provider.start(0, "127.0.0.1");
  provider.service.on(Events.BeforeTokenSigning, (token) => {
    token.payload.sub = user().sub;
  });
  provider.service.on(Events.BeforeUserinfo, (response) => {
    response.body = { ...user() };
  });
  return provider;
}
