import type { Resources } from "./en";

const de: Resources = {
  brand: { name: "Tessera", claim: "Gemeinsam Fragen zu Ihren Daten beantworten.", subclaim: "Datensätze mit Ihrem Team labeln, ordnen, bewerten und prüfen." },
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
    columns: { dataset: "Datensatz", workspace: "Arbeitsbereich", created: "Erstellt", updated: "Aktualisiert", progress: "Team-Fortschritt" },
    loadError: "Ihre Datensätze konnten nicht geladen werden.",
  },
  user: { menu: "Benutzermenü", mySettings: "Meine Einstellungen", viewDocs: "Dokumentation", logOut: "Abmelden" },
  errors: {
    notFound: "Diese Seite wurde nicht gefunden",
    somethingWrong: "Etwas ist schiefgelaufen.",
    cantFind: "Wir können die gesuchte Seite leider nicht finden",
    backHome: "Zurück zur Startseite",
  },
  common: { loading: "Wird geladen…" },
};
export default de;
