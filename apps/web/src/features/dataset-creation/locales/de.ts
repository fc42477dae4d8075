import type { DatasetCreationTexts } from "./en";

const datasetCreation: DatasetCreationTexts = {
  title: "Datensatz aus {{repoId}} erstellen",
  loading: "Datensatz wird von Hugging Face gelesen…",
  datasetNotFound: "Datensatz auf Hugging Face nicht gefunden oder nicht verfügbar",
  backHome: "Zurück zur Startseite",
  noRepo: "Fügen Sie auf der Startseite eine Repository-ID ein, um zu beginnen.",
  preview: { title: "Vorschau des Datensatzes", questions: "Vorschau des Fragenformulars", empty: "Hier erscheint Ihre Frage", noRow: "Die erste Zeile konnte nicht geladen werden." },
  subset: "Teilmenge", subsetHelp: "Sie können einen Datensatz nur aus einer Teilmenge erstellen.", split: "Aufteilung",
  columns: {
    title: "Spalten", help: "Wählen Sie, was aus jeder Spalte des Datensatzes wird.", type: "Typ von {{column}}", required: "Pflichtfeld",
    useMarkdown: "Markdown verwenden", externalId: "Externe ID", externalIdHelp: "Eine Spalte, deren Werte die Datensätze identifizieren.", none: "Keine",
    types: { text: "Textfeld", image: "Bildfeld", chat: "Chatfeld", noMapping: "Keine Zuordnung", terms: "Metadaten: Begriffe", integer: "Metadaten: Ganzzahl", float: "Metadaten: Dezimalzahl" },
  },
  questions: {
    title: "Fragen", add: "Frage hinzufügen", addType: "Eine Frage vom Typ {{type}} hinzufügen", remove: "{{name}} entfernen", questionTitle: "Titel", required: "Erforderlich",
    mapToColumn: "Spalte zuordnen", noMapping: "Keine Zuordnung", labels: "Labels", labelsHelp: "Labels mit Komma trennen", labelOrder: "Reihenfolge der Labels von {{name}}", labelOrderTitle: "Reihenfolge der Labels", newTitle: "{{type}} {{n}}",
    ratingFrom: "Von", ratingTo: "Bis", spanField: "Spans annotieren in:", useMarkdown: "Markdown verwenden",
    types: { text: "Text", label_selection: "Label", multi_label_selection: "Mehrfach-Label", rating: "Bewertung", ranking: "Rangfolge", span: "Span" },
    labelSelection: { atLeastTwoOptions: "Mindestens zwei Optionen sind erforderlich", optionsWithoutLabel: "Leere Optionen sind nicht erlaubt" },
    rating: { atLeastTwoOptions: "Mindestens zwei Optionen sind erforderlich" },
    span: { needsTextField: "Eine Span-Frage braucht ein Textfeld zum Annotieren" },
  },
  atLeastOneQuestion: "Mindestens eine Frage ist erforderlich.",
  atLeastOneRequired: "Mindestens eine erforderliche Frage wird benötigt.",
  hasInvalidQuestions: "Einige Fragen sind ungültig",
  atLeastOneField: "Mindestens eine Spalte muss einem Feld zugeordnet sein.",
  atLeastOneRequiredField: "Mindestens ein Feld muss erforderlich sein.",
  create: {
    title: "Datensatz erstellen", name: "Name des Datensatzes", nameRequired: "Der Datensatz braucht einen Namen.", workspace: "Arbeitsbereich zuweisen",
    newWorkspace: "Neuer Arbeitsbereich", newWorkspaceName: "Name des neuen Arbeitsbereichs", workspaceRequired: "Wählen Sie einen Arbeitsbereich oder benennen Sie einen neuen.",
    note: "Der erstellte Datensatz enthält die ersten 10.000 Zeilen; weitere Datensätze können mit dem Python-SDK hinzugefügt werden.",
    button: "Datensatz erstellen", creating: "Datensatz wird erstellt und die ersten Zeilen werden importiert…", failed: "Der Datensatz konnte nicht erstellt werden. Nichts wurde behalten; bitte prüfen Sie die Einstellungen und versuchen Sie es erneut.",
  },
};

export default datasetCreation;
