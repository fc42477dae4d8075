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
};
export default transfer;
