import type { DatasetCreationTexts } from "./en";

const datasetCreation: DatasetCreationTexts = {
  title: "Crear un conjunto de datos a partir de {{repoId}}",
  loading: "Leyendo el conjunto de datos de Hugging Face…",
  datasetNotFound: "Conjunto de datos no encontrado o no disponible en Hugging Face",
  backHome: "Volver a la página de inicio",
  noRepo: "Pega el id de un repositorio en la página de inicio para empezar.",
  preview: { title: "Vista previa del registro", questions: "Vista previa del formulario de preguntas", empty: "Tu pregunta aparecerá aquí", noRow: "No se pudo cargar la primera fila." },
  subset: "Subconjunto", subsetHelp: "Solo puedes crear un conjunto de datos a partir de un subconjunto.", split: "Partición",
  columns: {
    title: "Columnas", help: "Elige en qué se convierte cada columna del conjunto de datos.", type: "Tipo de {{column}}", required: "Campo obligatorio",
    useMarkdown: "Usar Markdown", externalId: "Id externo", externalIdHelp: "Una columna cuyos valores identifican los registros.", none: "Ninguna",
    types: { text: "Campo de texto", image: "Campo de imagen", chat: "Campo de chat", noMapping: "Sin asignar", terms: "Metadatos: términos", integer: "Metadatos: entero", float: "Metadatos: decimal" },
  },
  questions: {
    title: "Preguntas", add: "Añadir pregunta", addType: "Añadir una pregunta de tipo {{type}}", remove: "Quitar {{name}}", questionTitle: "Título", required: "Obligatoria",
    mapToColumn: "Asignar a columna", noMapping: "Sin asignar", labels: "Etiquetas", labelsHelp: "Separa las etiquetas con comas", labelOrder: "Orden de las etiquetas de {{name}}", labelOrderTitle: "Orden de las etiquetas", newTitle: "{{type}} {{n}}",
    ratingFrom: "Desde", ratingTo: "Hasta", spanField: "Anotar fragmentos en:", useMarkdown: "Usar Markdown",
    types: { text: "Texto", label_selection: "Etiqueta", multi_label_selection: "Multietiqueta", rating: "Valoración", ranking: "Clasificación", span: "Fragmento" },
    labelSelection: { atLeastTwoOptions: "Se necesitan al menos dos opciones", optionsWithoutLabel: "No se permiten opciones vacías" },
    rating: { atLeastTwoOptions: "Se necesitan al menos dos opciones" },
    span: { needsTextField: "Una pregunta de fragmentos necesita un campo de texto que anotar" },
  },
  atLeastOneQuestion: "Se necesita al menos una pregunta.",
  atLeastOneRequired: "Se necesita al menos una pregunta obligatoria.",
  hasInvalidQuestions: "Algunas preguntas no son válidas",
  atLeastOneField: "Al menos una columna debe asignarse a un campo.",
  atLeastOneRequiredField: "Al menos un campo debe ser obligatorio.",
  create: {
    title: "Crear el conjunto de datos", name: "Nombre del conjunto de datos", nameRequired: "El conjunto de datos necesita un nombre.", workspace: "Asignar un espacio de trabajo",
    newWorkspace: "Nuevo espacio de trabajo", newWorkspaceName: "Nombre del nuevo espacio de trabajo", workspaceRequired: "Elige un espacio de trabajo o nombra uno nuevo.",
    note: "El conjunto de datos creado incluirá las primeras 10K filas; se pueden añadir más registros con el SDK de Python.",
    button: "Crear conjunto de datos", creating: "Creando el conjunto de datos e importando las primeras filas…", failed: "No se pudo crear el conjunto de datos. No se guardó nada; revisa la configuración e inténtalo de nuevo.",
  },
};

export default datasetCreation;
