import type en from "./en";

/** Spanish texts of record downloads and uploads. */
const transfer: typeof en = {
  download: {
    open: "Descargar",
    title: "Descargar registros",
    format: "Formato",
    formats: { jsonl: "JSON Lines", csv: "CSV", parquet: "Parquet" },
    scope: "Registros",
    scopes: { filtered: "Registros que coinciden con los filtros actuales", all: "Todos los registros" },
    ownOnly: "Tu descarga contiene solo tus propias respuestas.",
    submit: "Descargar",
    busy: "Preparando tu descarga…",
    done: "Descargado {{filename}}",
    failed: "No se pudieron descargar los registros. Inténtalo de nuevo.",
    close: "Cerrar",
  },
};
export default transfer;
