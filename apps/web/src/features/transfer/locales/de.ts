import type en from "./en";

/** German texts of record downloads and uploads. */
const transfer: typeof en = {
  download: {
    open: "Herunterladen",
    title: "Datensätze herunterladen",
    format: "Format",
    formats: { jsonl: "JSON Lines", csv: "CSV", parquet: "Parquet" },
    scope: "Datensätze",
    scopes: { filtered: "Datensätze, die den aktuellen Filtern entsprechen", all: "Alle Datensätze" },
    ownOnly: "Ihr Download enthält nur Ihre eigenen Antworten.",
    submit: "Herunterladen",
    busy: "Ihr Download wird vorbereitet…",
    done: "{{filename}} heruntergeladen",
    failed: "Die Datensätze konnten nicht heruntergeladen werden. Versuchen Sie es erneut.",
    close: "Schließen",
  },
  upload: {
    title: "Datensätze aus einer Datei hinzufügen",
    intro: "CSV, TSV, JSON Lines, JSON (ein Array von Objekten) oder Parquet. Datensätze, deren externe ID schon im Datensatz ist, werden aktualisiert.",
    drop: "Datei hier ablegen oder auswählen",
    uploading: "Die Datei wird hochgeladen und gelesen…",
    refused: "Die Datei kann nicht importiert werden: {{detail}}",
    failed: "Die Datei konnte nicht hochgeladen werden. Versuchen Sie es erneut.",
    previewOf: "Erste Zeilen von {{filename}}. Wählen Sie, wohin jede Spalte gehört.",
    mapAs: "Spalte {{column}} zuordnen als",
    mapTo: "Spalte {{column}} zuordnen zu",
    kinds: { ignore: "Nicht importieren", field: "Feld", metadata: "Metadaten", suggestion: "Vorschlag für", response: "Antworten auf", vector: "Vektor", external_id: "Externe ID" },
    types: { text: "Text", image: "Bild-URL", chat: "Chat", label: "Label", labels: "Labels", integer: "Ganzzahl", float: "Zahl", terms: "Begriffe", other: "andere" },
    import: "Importieren",
    another: "Eine andere Datei hochladen",
    progress: "Importfortschritt",
    status: {
      uploaded: "Hochgeladen", queued: "Wartet auf den Start…", importing: "Import läuft: {{stored}} Zeilen gespeichert, {{failed}} fehlgeschlagen",
      finished: "Fertig: {{stored}} Zeilen gespeichert, {{failed}} fehlgeschlagen", failed: "Abgebrochen: {{stored}} Zeilen gespeichert, {{failed}} fehlgeschlagen", cancelled: "Storniert: {{stored}} Zeilen gespeichert, {{failed}} fehlgeschlagen",
    },
    cancel: "Import abbrechen",
    failedRows: "Fehlgeschlagene Zeilen herunterladen",
  },
  newDataset: {
    title: "Datensatz aus einer Datei erstellen",
    text: "Laden Sie eine CSV-, TSV-, JSON-Lines-, JSON- oder Parquet-Datei hoch; ihre Spalten werden wie bei einem Hub-Datensatz zu Feldern, Fragen und Metadaten.",
    button: "Datei hochladen",
    heading: "Neuer Datensatz aus {{filename}}",
  },
};
export default transfer;
