import type { DatasetSettingsTexts } from "./en";

const datasetSettings: DatasetSettingsTexts = {
  title: "Datensatz-Einstellungen",
  seeDataset: "Zum Datensatz",
  tabsLabel: "Bereiche der Einstellungen",
  tabs: { info: "Datensatz-Info", fields: "Felder", questions: "Fragen", metadata: "Metadaten", vectors: "Vektoren", records: "Datensätze hinzufügen", danger: "Gefahrenzone" },
  loadFailed: "Die Einstellungen des Datensatzes konnten nicht geladen werden.",
  notAllowed: { title: "Nicht erlaubt", text: "Nur Admins und Eigentümer können die Einstellungen eines Datensatzes ändern.", back: "Zurück zur Startseite" },
  actions: { update: "Aktualisieren", cancel: "Abbrechen", saving: "Wird gespeichert…", saved: "Gespeichert", reverted: "Nicht gespeichert: der zuletzt gespeicherte Wert ist zurück" },
  info: {
    name: "Name des Datensatzes", workspace: "Arbeitsbereich", copyLink: "Link kopieren",
    guidelines: "Annotationsrichtlinien", guidelinesHelp: "Markdown wird unterstützt. Annotierende sehen diese Richtlinien neben den Datensätzen.",
    write: "Schreiben", preview: "Vorschau",
    distribution: "Aufgabenverteilung", minSubmitted: "Mindestanzahl eingereichter Antworten",
    minSubmittedHelp: "Ein Datensatz ist vollständig, wenn er so viele eingereichte Antworten hat.",
    allowExtraMetadata: "Zusätzliche Metadaten erlauben", allowExtraMetadataHelp: "Datensätze dürfen Metadaten enthalten, die nicht als Metadaten-Eigenschaft definiert sind.",
  },
  fields: { title: "Titel", useMarkdown: "Markdown verwenden", required: "Erforderlich", optional: "Optional", template: "Eigene Vorlage", none: "Dieser Datensatz hat keine Felder." },
  questions: {
    title: "Titel", description: "Beschreibung", labels: "Labels", labelText: "Text des Labels {{value}}",
    moveUp: "{{label}} nach oben", moveDown: "{{label}} nach unten", visibleLabels: "Sichtbare Labels", suggestionsFirst: "Vorschläge zuerst zeigen",
    useMarkdown: "Markdown verwenden", color: "Farbe von {{label}}", colorHelp: "HSL, zum Beispiel hsl(200, 80%, 80%)", colorPlaceholder: "hsl(200, 80%, 80%)",
    preview: "UI-Vorschau", previewText: "So sehen Annotierende die Frage.", required: "Erforderlich", optional: "Optional",
    none: "Dieser Datensatz hat keine Fragen.",
  },
  sortable: {
    handle: "{{label}} ziehen, um die Reihenfolge zu ändern", roleDescription: "sortierbares Label",
    instructions: "Leertaste oder Eingabe nimmt ein Label auf. Mit den Pfeiltasten verschieben, mit Leertaste oder Eingabe ablegen, mit Escape abbrechen.",
    pickedUp: "{{label}} aufgenommen, Position {{position}} von {{count}}.", movedOver: "{{label}} auf Position {{position}} von {{count}} verschoben.",
    dropped: "{{label}} auf Position {{position}} von {{count}} abgelegt.", cancelled: "Verschieben von {{label}} abgebrochen.",
  },
  questionTypes: { text: "Text", label_selection: "Label", multi_label_selection: "Mehrfach-Label", rating: "Bewertung", ranking: "Rangfolge", span: "Textstelle" },
  fieldTypes: { text: "Text", image: "Bild", chat: "Chat", custom: "Benutzerdefiniert" },
  metadataTypes: { terms: "Begriffe", integer: "Ganzzahl", float: "Kommazahl" },
  metadata: { title: "Titel", visibleForAnnotators: "Für Annotierende sichtbar", none: "Dieser Datensatz hat keine Metadaten-Eigenschaften." },
  vectors: { title: "Titel", dimensions: "Dimensionen: {{count}}", none: "Dieser Datensatz hat keine Vektoren." },
  danger: {
    title: "Gefahrenzone", deleteTitle: "Datensatz löschen", warning: "Vorsicht, diese Aktion kann nicht rückgängig gemacht werden", delete: "Datensatz löschen",
    confirm: "Sie sind dabei, {{dataset}} aus dem Arbeitsbereich {{workspace}} zu löschen. Diese Aktion kann nicht rückgängig gemacht werden", yes: "Ja, löschen", cancel: "Abbrechen",
  },
  validations: {
    required: "Dieses Feld ist erforderlich.",
    maxLength: "Dies muss kürzer als {{limit}} sein.",
    colorMustBeHsl: "Der Farbwert muss vorerst HSL sein.",
    businessLogic: { update_distribution_with_existing_responses: { message: "Die Verteilungseinstellungen können bei einem Datensatz mit Antworten von Nutzern nicht geändert werden" } },
  },
};

export default datasetSettings;
