import annotationEn from "../../features/annotation/locales/en";
import reviewEn from "../../features/review/locales/en";
import datasetSettingsEn from "../../features/dataset-settings/locales/en";
import datasetCreationEn from "../../features/dataset-creation/locales/en";
import offlineEn from "../../features/offline/locales/en";
import transferEn from "../../features/transfer/locales/en";
/** English: the reference locale. de and es must have exactly the same keys (checked by a test). */
const en = {
  brand: {
    name: "Tessera",
    homeLink: "Tessera home",
    claim: "Answer questions about your data, together.",
    subclaim: "Label, rank, rate and review records with your team.",
  },
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
    search: "Search datasets",
    found_one: "{{count}} dataset found",
    found_other: "{{count}} datasets found",
    progressLabel: "{{completed}} of {{total}} records completed ({{percent}}%)",
    sidebarLabel: "Get started",
    hub: {
      title: "Import a dataset from Hugging Face Hub",
      text: "Start with a dataset from the Hub by simply pasting the repository name",
      label: "Hub repository id",
      placeholder: "Paste a repo id e.g., stanfordnlp/imdb",
      button: "Import dataset",
    },
    python: {
      title: "Import from Python",
      text: "Use the Python SDK with your API key to create datasets and log records.",
      copy: "Copy the Python snippet",
      keyPlaceholder: "<your API key: generate one in My settings>",
    },
    examples: { title: "Don't know where to start?", text: "Explore these example datasets" },
    guides: {
      title: "Not familiar with Tessera?",
      text: "Take a look at these guides:",
      configure: "Configure a dataset",
      annotate: "Annotate records",
      sdk: "Add and update records with the SDK",
    },
    demo: "Try the live demo",
  },
  user: { menu: "User menu", mySettings: "My settings", viewDocs: "View docs", logOut: "Log out" },
  errors: {
    notFound: "This page could not be found",
    somethingWrong: "Something went wrong.",
    cantFind: "We can't seem to find the page you are looking for",
    backHome: "Back to home page",
    pill: "Error {{status}}",
    unknown: "An unexpected error occurred",
  },
  breadcrumbs: { label: "Breadcrumb", home: "Home", settings: "settings", mySettings: "my settings" },
  userSettings: {
    title: "My settings",
    profile: "Profile",
    username: "Username",
    name: "Name",
    surname: "Surname",
    role: "Role",
    workspaces: "Workspaces",
    workspacesError: "Your workspaces could not be loaded.",
    apiKey: "API key",
    apiKeyText: "Use this key with the Python SDK. Keep it secret.",
    copyApiKey: "Copy API key",
    apiKeyNew: "Copy your new key now: it is shown only this once.",
    apiKeyHidden:
      "Keys are stored so that nobody can read them again, you included. Generate a new key to use the Python SDK; your previous key stops working at once.",
    regenerateApiKey: "Generate a new API key",
    regenerateApiKeyError: "A new API key could not be generated. Try again.",
    appearance: "Appearance and language",
    theme: "Theme",
    language: "Language",
  },
  theme: { system: "System default", light: "Light", dark: "Dark" },
  toast: { close: "Close notification" },
  connectivity: { offline: "You are offline", online: "You are online again" },
  persistentStorage: {
    adminOrOwner:
      "Persistent storage is not enabled. All data will be lost if this space restarts. Go to the space settings to enable it: {{settingsUrl}}",
    annotator: "Persistent storage is not enabled. All data will be lost if this space restarts.",
  },
  welcome: {
    title: "Welcome to {{space}}",
    subtitle: "Join the team to build better datasets for AI",
    signInWithUsername: "Sign in with username",
  },
  oauth: {
    or: "or",
    signInWith: "Sign in with {{provider}}",
    signingIn: "Signing you in with {{provider}}…",
    failedTitle: "Sign-in failed",
    failed: "Signing in with {{provider}} did not work. The link may have expired or been used already. Please try again.",
    backToSignIn: "Back to sign in",
    spaceOwner: "This space belongs to {{owner}}.",
  },
  placeholders: {
    datasetCreation: "Create a dataset",
    annotation: "Annotate",
    datasetSettings: "Dataset settings",
    comingSoon: "This page is being built.",
  },
  common: { loading: "Loading…", copy: "Copy", copied: "Copied", skipToContent: "Skip to content" },
  annotation: annotationEn,
  review: reviewEn,
  datasetSettings: datasetSettingsEn,
  datasetCreation: datasetCreationEn,
  offline: offlineEn,
  transfer: transferEn,
};

export type Resources = typeof en;
export default en;
