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
  agreement: "dataset-id-agreement",
  review: "dataset-id-review",
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
  /** The Agreement screen; `search` carries the annotation page's filters (its `?…` query). */
  agreement: (datasetId: string, search = "") => `/dataset/${encodeURIComponent(datasetId)}/agreement${search}`,
  /** Review mode; `record` opens one record first, `question` filters disagreements on it. */
  review: (datasetId: string, options: { record?: string; question?: string } = {}) => {
    const query = new URLSearchParams(Object.entries(options).filter((e): e is [string, string] => Boolean(e[1]))).toString();
    return `/dataset/${encodeURIComponent(datasetId)}/review${query ? `?${query}` : ""}`;
  },
};
