import annotationDe from "../../features/annotation/locales/de";
import reviewDe from "../../features/review/locales/de";
import datasetSettingsDe from "../../features/dataset-settings/locales/de";
import datasetCreationDe from "../../features/dataset-creation/locales/de";
import offlineDe from "../../features/offline/locales/de";
import transferDe from "../../features/transfer/locales/de";
import type { Resources } from "./en";

const de: Resources = {
  brand: {
    name: "Tessera",
    homeLink: "Tessera-Startseite",
    claim: "Gemeinsam Fragen zu Ihren Daten beantworten.",
    subclaim: "Datensätze mit Ihrem Team labeln, ordnen, bewerten und prüfen.",
  },
  signIn: {
    title: "Anmelden",
    subtitle: "Willkommen zurück",
    username: "Benutzername",
    password: "Passwort",
    submit: "Anmelden",
    submitting: "Anmeldung läuft…",
    wrongCredentials: "Falscher Benutzername oder falsches Passwort. Bitte erneut versuchen",
    firstTime: "Zum ersten Mal hier? Verwenden Sie das in der Serverkonsole ausgegebene Owner-Konto.",
  },
  home: {
    yourDatasets: "Ihre Datensätze",
    noneYet: "Noch keine",
    emptyAdmin: "Erstellen Sie Ihren ersten Datensatz aus dem Hub oder mit dem Python-SDK.",
    emptyAnnotator: "Bitten Sie einen Administrator, einen Datensatz mit Ihnen zu teilen.",
    columns: {
      dataset: "Datensatz",
      workspace: "Arbeitsbereich",
      created: "Erstellt",
      updated: "Aktualisiert",
      progress: "Team-Fortschritt",
    },
    loadError: "Ihre Datensätze konnten nicht geladen werden.",
    search: "Datensätze durchsuchen",
    found_one: "{{count}} Datensatz gefunden",
    found_other: "{{count}} Datensätze gefunden",
    progressLabel: "{{completed}} von {{total}} Einträgen abgeschlossen ({{percent}} %)",
    sidebarLabel: "Erste Schritte",
    hub: {
      title: "Datensatz aus dem Hugging Face Hub importieren",
      text: "Beginnen Sie mit einem Datensatz aus dem Hub, indem Sie einfach den Namen des Repositorys einfügen",
      label: "Repository-ID im Hub",
      placeholder: "Repo-ID einfügen, z. B. stanfordnlp/imdb",
      button: "Datensatz importieren",
    },
    python: {
      title: "Aus Python importieren",
      text: "Verwenden Sie das Python-SDK mit Ihrem API-Schlüssel, um Datensätze zu erstellen und Einträge hinzuzufügen.",
      copy: "Python-Code kopieren",
      keyPlaceholder: "<Ihr API-Schlüssel: erzeugen Sie einen unter Meine Einstellungen>",
    },
    examples: { title: "Sie wissen nicht, wo Sie anfangen sollen?", text: "Entdecken Sie diese Beispieldatensätze" },
    guides: {
      title: "Tessera ist neu für Sie?",
      text: "Sehen Sie sich diese Anleitungen an:",
      configure: "Einen Datensatz konfigurieren",
      annotate: "Einträge annotieren",
      sdk: "Einträge mit dem SDK hinzufügen und ändern",
    },
    demo: "Live-Demo ausprobieren",
  },
  user: { menu: "Benutzermenü", mySettings: "Meine Einstellungen", viewDocs: "Dokumentation", logOut: "Abmelden" },
  errors: {
    notFound: "Diese Seite wurde nicht gefunden",
    somethingWrong: "Etwas ist schiefgelaufen.",
    cantFind: "Wir können die gesuchte Seite leider nicht finden",
    backHome: "Zurück zur Startseite",
    pill: "Fehler {{status}}",
    unknown: "Ein unerwarteter Fehler ist aufgetreten",
  },
  breadcrumbs: { label: "Brotkrümelnavigation", home: "Startseite", settings: "Einstellungen", mySettings: "meine Einstellungen" },
  userSettings: {
    title: "Meine Einstellungen",
    profile: "Profil",
    username: "Benutzername",
    name: "Vorname",
    surname: "Nachname",
    role: "Rolle",
    workspaces: "Arbeitsbereiche",
    workspacesError: "Ihre Arbeitsbereiche konnten nicht geladen werden.",
    apiKey: "API-Schlüssel",
    apiKeyText: "Verwenden Sie diesen Schlüssel mit dem Python-SDK. Halten Sie ihn geheim.",
    copyApiKey: "API-Schlüssel kopieren",
    apiKeyNew: "Kopieren Sie Ihren neuen Schlüssel jetzt: Er wird nur dieses eine Mal angezeigt.",
    apiKeyHidden:
      "Schlüssel werden so gespeichert, dass niemand sie wieder lesen kann, auch Sie nicht. Erzeugen Sie einen neuen Schlüssel für das Python-SDK; Ihr bisheriger Schlüssel funktioniert dann sofort nicht mehr.",
    regenerateApiKey: "Neuen API-Schlüssel erzeugen",
    regenerateApiKeyError: "Es konnte kein neuer API-Schlüssel erzeugt werden. Versuchen Sie es noch einmal.",
    appearance: "Darstellung und Sprache",
    theme: "Design",
    language: "Sprache",
  },
  theme: { system: "Systemstandard", light: "Hell", dark: "Dunkel" },
  toast: { close: "Benachrichtigung schließen" },
  connectivity: { offline: "Sie sind offline", online: "Sie sind wieder online" },
  persistentStorage: {
    adminOrOwner:
      "Persistenter Speicher ist nicht aktiviert. Alle Daten gehen verloren, wenn dieser Space neu startet. Aktivieren Sie ihn in den Space-Einstellungen: {{settingsUrl}}",
    annotator: "Persistenter Speicher ist nicht aktiviert. Alle Daten gehen verloren, wenn dieser Space neu startet.",
  },
  welcome: {
    title: "Willkommen bei {{space}}",
    subtitle: "Helfen Sie dem Team, bessere Datensätze für KI zu erstellen",
    signInWithUsername: "Mit Benutzernamen anmelden",
  },
  oauth: {
    or: "oder",
    signInWith: "Mit {{provider}} anmelden",
    signingIn: "Anmeldung mit {{provider}} läuft…",
    failedTitle: "Anmeldung fehlgeschlagen",
    failed:
      "Die Anmeldung mit {{provider}} hat nicht funktioniert. Der Link ist vielleicht abgelaufen oder wurde schon benutzt. Bitte versuchen Sie es erneut.",
    backToSignIn: "Zurück zur Anmeldung",
    spaceOwner: "Dieser Space gehört {{owner}}.",
  },
  placeholders: {
    datasetCreation: "Datensatz erstellen",
    annotation: "Annotieren",
    datasetSettings: "Datensatz-Einstellungen",
    comingSoon: "Diese Seite befindet sich im Aufbau.",
  },
  common: { loading: "Wird geladen…", copy: "Kopieren", copied: "Kopiert", skipToContent: "Zum Inhalt springen" },
  annotation: annotationDe,
  review: reviewDe,
  datasetSettings: datasetSettingsDe,
  datasetCreation: datasetCreationDe,
  offline: offlineDe,
  transfer: transferDe,
};
export default de;
