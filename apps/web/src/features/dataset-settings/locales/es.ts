import type { DatasetSettingsTexts } from "./en";

const datasetSettings: DatasetSettingsTexts = {
  title: "Configuración del conjunto de datos",
  seeDataset: "Ver tu conjunto de datos",
  tabsLabel: "Secciones de la configuración",
  tabs: { info: "Información", fields: "Campos", questions: "Preguntas", metadata: "Metadatos", vectors: "Vectores", records: "Añadir registros", danger: "Zona de peligro" },
  loadFailed: "No se pudo cargar la configuración del conjunto de datos.",
  notAllowed: { title: "No permitido", text: "Solo los administradores y propietarios pueden cambiar la configuración de un conjunto de datos.", back: "Volver a la página de inicio" },
  actions: { update: "Actualizar", cancel: "Cancelar", saving: "Guardando…", saved: "Guardado", reverted: "No guardado: se recuperó el último valor guardado" },
  info: {
    name: "Nombre del conjunto de datos", workspace: "Espacio de trabajo", copyLink: "Copiar enlace",
    guidelines: "Guía de anotación", guidelinesHelp: "Se admite Markdown. Los anotadores ven esta guía junto a los registros.",
    write: "Escribir", preview: "Vista previa",
    distribution: "Distribución de tareas", minSubmitted: "Mínimo de respuestas enviadas",
    minSubmittedHelp: "Un registro está completo cuando tiene este número de respuestas enviadas.",
    allowExtraMetadata: "Permitir metadatos adicionales", allowExtraMetadataHelp: "Los registros pueden llevar metadatos que no están definidos como propiedad de metadatos.",
  },
  fields: { title: "Título", useMarkdown: "Usar Markdown", required: "Obligatorio", optional: "Opcional", template: "Plantilla personalizada", none: "Este conjunto de datos no tiene campos." },
  questions: {
    title: "Título", description: "Descripción", labels: "Etiquetas", labelText: "Texto de la etiqueta {{value}}",
    moveUp: "Subir {{label}}", moveDown: "Bajar {{label}}", visibleLabels: "Etiquetas visibles", suggestionsFirst: "Mostrar primero las sugerencias",
    useMarkdown: "Usar Markdown", color: "Color de {{label}}", colorHelp: "HSL, por ejemplo hsl(200, 80%, 80%)", colorPlaceholder: "hsl(200, 80%, 80%)",
    preview: "Vista previa de la interfaz", previewText: "Así verán la pregunta los anotadores.", required: "Obligatoria", optional: "Opcional",
    none: "Este conjunto de datos no tiene preguntas.",
  },
  sortable: {
    handle: "Arrastrar {{label}} para reordenar", roleDescription: "etiqueta ordenable",
    instructions: "Para tomar una etiqueta, pulsa Espacio o Intro. Muévela con las flechas, suéltala con Espacio o Intro, o pulsa Escape para cancelar.",
    pickedUp: "{{label}} tomada, posición {{position}} de {{count}}.", movedOver: "{{label}} movida a la posición {{position}} de {{count}}.",
    dropped: "{{label}} soltada en la posición {{position}} de {{count}}.", cancelled: "Se canceló el movimiento de {{label}}.",
  },
  questionTypes: { text: "Texto", label_selection: "Etiqueta", multi_label_selection: "Multietiqueta", rating: "Valoración", ranking: "Clasificación", span: "Fragmento" },
  fieldTypes: { text: "Texto", image: "Imagen", chat: "Chat", custom: "Personalizado" },
  metadataTypes: { terms: "Términos", integer: "Entero", float: "Decimal" },
  metadata: { title: "Título", visibleForAnnotators: "Visible para los anotadores", none: "Este conjunto de datos no tiene propiedades de metadatos." },
  vectors: { title: "Título", dimensions: "Dimensiones: {{count}}", none: "Este conjunto de datos no tiene vectores." },
  danger: {
    title: "Zona de peligro", deleteTitle: "Eliminar conjunto de datos", warning: "Cuidado, esta acción no se puede deshacer", delete: "Eliminar conjunto de datos",
    confirm: "Vas a eliminar {{dataset}} del espacio de trabajo {{workspace}}. Esta acción no se puede deshacer", yes: "Sí, eliminar", cancel: "Cancelar",
  },
  validations: {
    required: "Este campo es obligatorio.",
    maxLength: "Debe tener menos de {{limit}}.",
    colorMustBeHsl: "Por ahora el color debe estar en HSL.",
    businessLogic: { update_distribution_with_existing_responses: { message: "La configuración de distribución no se puede modificar en un conjunto de datos con respuestas de usuarios" } },
  },
};

export default datasetSettings;
