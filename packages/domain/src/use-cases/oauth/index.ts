export * from "./ports.js";
export * from "./load-oauth-providers.js";
export * from "./start-oauth-sign-in.js";
export * from "./sign-in-with-oauth.js";
