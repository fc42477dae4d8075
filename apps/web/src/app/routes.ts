/** Route names (spec section 2; the unnamed routes get Nuxt-style names) and path builders. */
export const ROUTE_NAMES = {
  signIn: "sign-in",
  welcomeHfSignIn: "welcome-hf-sign-in",
  index: "index",
  newDataset: "new-id",
  newFromFile: "new-from-file",
  annotation: "dataset-id-annotation-mode",
  datasetSettings: "dataset-id-settings",
  oauthCallback: "oauth-provider-callback",
  userSettings: "user-settings",
  hubRepo: "id",
} as const;

export const paths = {
  home: () => "/",
  signIn: () => "/sign-in",
  userSettings: () => "/user-settings",
  /** Dataset creation from a hub repository id such as 'stanfordnlp/imdb' (URL-encoded into one segment). */
  newDataset: (repoId: string) => `/new/${encodeURIComponent(repoId)}`,
  /** Dataset creation from an uploaded file. */
  newFromFile: () => "/new-from-file",
  annotation: (datasetId: string) => `/dataset/${encodeURIComponent(datasetId)}/annotation-mode`,
  datasetSettings: (datasetId: string) => `/dataset/${encodeURIComponent(datasetId)}/settings`,
};
