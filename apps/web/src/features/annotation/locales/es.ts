import type en from "./en";

/** Spanish texts of the annotation screen. */
const annotation: typeof en = {
  loading: "Cargando registros…",
  loadError: "No se pudieron cargar los registros.",
  status: { pending: "Pendiente", draft: "Borrador", submitted: "Enviado", discarded: "Descartado" },
  nav: { label: "Navegación de registros", previous: "Anterior (←)", next: "Siguiente (→)", position: "Registro {{page}} de {{total}}" },
  view: { label: "Vista", focus: "Vista de enfoque", bulk: "Vista masiva" },
  form: {
    label: "Preguntas", submit: "Enviar", draft: "Guardar como borrador", discard: "Descartar", clear: "Limpiar", reset: "Restablecer",
    saving: "Guardando", saved: "Guardado", completeRequired: "Para enviar, completa las respuestas obligatorias",
  },
  questions: {
    requiredResponse: "Respuesta obligatoria", optional: "(opcional)", searchLabels: "Buscar etiquetas", less: "Menos",
    write: "Escribir", preview: "Vista previa", textPlaceholder: "Escribe tu respuesta",
  },
  suggestion: { label: "Sugerencia", tooltip: "Sugerencia de {{agent}}", aria: "Sugerencia, puntuación {{score}}, de {{agent}}" },
  ranking: { card: "Opción ordenable", rankedAs: "{{option}}, posición {{rank}}", slot: "Posición {{rank}}", unranked: "Opciones sin ordenar" },
  span: {
    notSupported: "La anotación de fragmentos no es compatible con tu navegador",
    cursor: "Selecciona texto para etiquetarlo como {{entity}}",
    shiftHint: "Mantén 'Shift' para seleccionar a nivel de carácter",
    remove: "Quitar {{label}} de «{{text}}»",
    instructions: "Elige una etiqueta y selecciona texto en el registro ({{count}} fragmentos).",
  },
  fields: { imageError: "No se pudo cargar la imagen", copy: "Copiar al portapapeles" },
  record: { label: "Registro", info: "Información del registro", completeTooltip: "El registro está completo, tiene el número mínimo de respuestas" },
  saveFailed: { message: "Tu respuesta al registro {{page}} no se guardó", goTo: "Ir al registro {{page}}", retry: "Reintentar", badge: "No guardado" },
  guard: { message: "No has enviado tus cambios", ignore: "Ignorar y continuar", close: "Cerrar" },
  empty: {
    noMatch: "No tienes registros con estado {{status}} que coincidan con tu búsqueda",
    datasetEmpty: "El dataset está vacío",
    taskCompleted: "🎉 ¡La tarea está completada!",
    noPending: "No tienes registros pendientes de anotar",
    noSubmitted: "Aún no has enviado ningún registro",
    noDraft: "No tienes borradores para revisar",
    noDiscarded: "No tienes registros descartados",
  },
  filters: {
    filters: "Filtros", activeSuffix_one: "activo", activeSuffix_other: "activos", searchValues: "Buscar", searchValuesOf: "Buscar en {{name}}", noMatches: "Sin coincidencias", minimumOf: "Mínimo de {{name}}", maximumOf: "Máximo de {{name}}", back: "Volver a la lista", searchIn: "Buscar en {{category}}", active: "Filtros activos", nothingToFilter: "No hay nada que filtrar en este conjunto de datos", edit: "Editar {{name}}",
    search: "Buscar registros", searchPlaceholder: "Introduce una consulta", searchField: "Buscar en", allFields: "Todos los campos", searchButton: "Buscar",
    status: "Estado", metadata: "Metadatos", sort: "Ordenar", noSort: "Orden predeterminado", insertedAt: "Insertado el", updatedAt: "Actualizado el",
    order: "Orden", asc: "Ascendente", desc: "Descendente", reset: "Restablecer", from: "Desde", to: "Hasta", apply: "Aplicar", remove: "Quitar filtro {{name}}",
    responsesOf: "Respuestas a {{question}}", responses: "Respuestas", suggestions: "Sugerencias", question: "Pregunta", property: "Filtrar por",
    suggestionValue: "Valores sugeridos", score: "Puntuación", agent: "Agente", noAgents: "No hay agentes para esta pregunta",
    thenBy: "Después por", orderOf: "Orden de {{name}}", addSort: "+ Añadir otro campo", removeSort: "Quitar orden por {{name}}",
    sortGroup: { general: "General", metadata: "Metadatos", suggestions: "Sugerencias", responses: "Respuestas" },
    sortSuggestionScore: "Puntuación de la sugerencia: {{question}}", sortSuggestionValue: "Valor sugerido: {{question}}", sortResponseValue: "Valor de la respuesta: {{question}}",
    responseMode: "Filtrar por", values: "Valores", range: "Rango", exactAnswer: "Respuesta exacta",
    noTerms: "Aún no hay valores observados", observedRange: "Observado: de {{min}} a {{max}}",
  },
  similarity: {
    find: "Buscar similares", using: "Similar según", order: "Orden", most: "Más similares", least: "Menos similares", limit: "Número de registros",
    search: "Buscar", score: "Similitud {{score}} %", similarTo: "{{order}}: registros según {{vector}}", clear: "Quitar búsqueda por similitud",
  },
  bulk: {
    showMore: "Mostrar más", showLess: "Mostrar menos",
    selectAll: "Seleccionar todo", selectRecord: "Seleccionar registro {{id}}",
    selected_one: "{{count}} registro seleccionado", selected_other: "{{count}} registros seleccionados",
    selectAllMatched: "Seleccionar los {{total}} registros coincidentes", allSelected: "Has seleccionado los {{total}} registros", cancel: "Cancelar",
    pageSize: "Registros por página", page: "Página {{page}} de {{pages}}", expand: "Expandir registros", collapse: "Contraer registros",
    noneSelected: "Ningún registro seleccionado", progress: "Progreso de la anotación masiva", someFailed: "Algunos registros no se pudieron anotar",
    confirmTitle: "Confirmación de acción masiva", confirmText: "Esta acción afectará a {{total}} registros, ¿quieres continuar?", continue: "Continuar",
    done: {
      submitted: "Los {{total}} registros se han enviado", discarded: "Los {{total}} registros se han descartado", draft: "Los {{total}} registros se han guardado como borrador",
    },
  },
  guidelines: { title: "Directrices", none: "Este dataset no tiene directrices de anotación" },
  progress: { mine: "Mi progreso", mineSummary: "{{percent}} % respondido ({{responded}} de {{total}})", team: "Progreso del equipo", completed: "{{percent}} % completado ({{completed}} de {{total}})", teamTooltip: "{{completed}} de {{total}} registros completados" },
  shortcuts: {
    open: "Atajos", title: "Atajos de teclado", close: "Cerrar",
    submit: "Enviar", discard: "Descartar", draft: "Guardar como borrador", nextRecord: "Registro siguiente", previousRecord: "Registro anterior",
    moveQuestions: "Moverse entre preguntas", selectLabel: "Seleccionar o quitar una etiqueta", moveLabels: "Moverse entre etiquetas u opciones de ranking",
    rank: "Ordenar la opción enfocada / quitar su posición", textArea: "Activar / salir del área de texto", characterSpan: "Mantener para seleccionar a nivel de carácter",
  },
};

export default annotation;
