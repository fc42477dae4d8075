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
  upload: {
    title: "Añadir registros desde un archivo",
    intro: "CSV, TSV, JSON Lines, JSON (una lista de objetos) o Parquet. Los registros cuyo id externo ya está en el dataset se actualizan.",
    drop: "Suelta un archivo aquí o elige uno",
    uploading: "Subiendo y leyendo el archivo…",
    refused: "El archivo no se puede importar: {{detail}}",
    failed: "No se pudo subir el archivo. Inténtalo de nuevo.",
    previewOf: "Primeras filas de {{filename}}. Elige a dónde va cada columna.",
    mapAs: "Asignar la columna {{column}} como",
    mapTo: "Asignar la columna {{column}} a",
    kinds: { ignore: "No importar", field: "Campo", metadata: "Metadatos", suggestion: "Sugerencia para", response: "Respuestas a", vector: "Vector", external_id: "Id externo" },
    types: { text: "texto", image: "URL de imagen", chat: "chat", label: "etiqueta", labels: "etiquetas", integer: "entero", float: "número", terms: "términos", other: "otro" },
    import: "Importar",
    another: "Subir otro archivo",
    progress: "Progreso de la importación",
    status: {
      uploaded: "Subido", queued: "Esperando para empezar…", importing: "Importando: {{stored}} filas guardadas, {{failed}} fallidas",
      finished: "Hecho: {{stored}} filas guardadas, {{failed}} fallidas", failed: "Detenido: {{stored}} filas guardadas, {{failed}} fallidas", cancelled: "Cancelado: {{stored}} filas guardadas, {{failed}} fallidas",
    },
    cancel: "Cancelar la importación",
    failedRows: "Descargar las filas que fallaron",
  },
  newDataset: {
    title: "Crear un dataset desde un archivo",
    text: "Sube un archivo CSV, TSV, JSON Lines, JSON o Parquet; sus columnas se convierten en campos, preguntas y metadatos como con un dataset del Hub.",
    button: "Subir un archivo",
    heading: "Nuevo dataset desde {{filename}}",
  },
};
export default transfer;
