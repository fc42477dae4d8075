/** English: the reference locale. de and es must have exactly the same keys (checked by a test). */
const en = {
  brand: { name: "Tessera", claim: "Answer questions about your data, together.", subclaim: "Label, rank, rate and review records with your team." },
  signIn: {
    title: "Sign in",
    subtitle: "Welcome back",
    username: "Username",
    password: "Password",
    submit: "Sign in",
    submitting: "Signing in…",
    wrongCredentials: "Wrong username or password. Try again",
    firstTime: "First time here? Use the owner account printed in the server console.",
  },
  home: {
    yourDatasets: "Your datasets",
    noneYet: "None yet",
    emptyAdmin: "Create your first dataset from the Hub or with the Python SDK.",
    emptyAnnotator: "Ask an administrator to share a dataset with you.",
    columns: { dataset: "Dataset", workspace: "Workspace", created: "Created", updated: "Updated", progress: "Team progress" },
    loadError: "Your datasets could not be loaded.",
  },
  user: { menu: "User menu", mySettings: "My settings", viewDocs: "View docs", logOut: "Log out" },
  errors: {
    notFound: "This page could not be found",
    somethingWrong: "Something went wrong.",
    cantFind: "We can't seem to find the page you are looking for",
    backHome: "Back to home page",
  },
  common: { loading: "Loading…" },
};

export type Resources = typeof en;
export default en;
