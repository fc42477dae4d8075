import annotationEs from "../../features/annotation/locales/es";
import reviewEs from "../../features/review/locales/es";
import datasetSettingsEs from "../../features/dataset-settings/locales/es";
import datasetCreationEs from "../../features/dataset-creation/locales/es";
import offlineEs from "../../features/offline/locales/es";
import transferEs from "../../features/transfer/locales/es";
import type { Resources } from "./en";

const es: Resources = {
  brand: {
    name: "Tessera",
    homeLink: "Inicio de Tessera",
    claim: "Responde preguntas sobre tus datos, en equipo.",
    subclaim: "Etiqueta, ordena, valora y revisa registros con tu equipo.",
  },
  signIn: {
    title: "Iniciar sesión",
    subtitle: "Bienvenido de nuevo",
    username: "Usuario",
    password: "Contraseña",
    submit: "Iniciar sesión",
    submitting: "Iniciando sesión…",
    wrongCredentials: "Usuario o contraseña incorrectos. Inténtalo de nuevo",
    firstTime: "¿Primera vez? Usa la cuenta de propietario que muestra la consola del servidor.",
  },
  home: {
    yourDatasets: "Tus datasets",
    noneYet: "Ninguno todavía",
    emptyAdmin: "Crea tu primer dataset desde el Hub o con el SDK de Python.",
    emptyAnnotator: "Pide a un administrador que comparta un dataset contigo.",
    columns: {
      dataset: "Dataset",
      workspace: "Espacio de trabajo",
      created: "Creado",
      updated: "Actualizado",
      progress: "Progreso del equipo",
    },
    loadError: "No se pudieron cargar tus datasets.",
    search: "Buscar datasets",
    found_one: "{{count}} dataset encontrado",
    found_other: "{{count}} datasets encontrados",
    progressLabel: "{{completed}} de {{total}} registros completados ({{percent}} %)",
    sidebarLabel: "Primeros pasos",
    hub: {
      title: "Importar un dataset desde Hugging Face Hub",
      text: "Empieza con un dataset del Hub pegando simplemente el nombre del repositorio",
      label: "Id del repositorio en el Hub",
      placeholder: "Pega un id de repositorio, p. ej., stanfordnlp/imdb",
      button: "Importar dataset",
    },
    python: {
      title: "Importar desde Python",
      text: "Usa el SDK de Python con tu clave API para crear datasets y añadir registros.",
      copy: "Copiar el código Python",
      keyPlaceholder: "<tu clave de API: genera una en Mis ajustes>",
    },
    examples: { title: "¿No sabes por dónde empezar?", text: "Explora estos datasets de ejemplo" },
    guides: {
      title: "¿No conoces Tessera?",
      text: "Echa un vistazo a estas guías:",
      configure: "Configurar un dataset",
      annotate: "Anotar registros",
      sdk: "Añadir y actualizar registros con el SDK",
    },
    demo: "Probar la demo",
  },
  user: { menu: "Menú de usuario", mySettings: "Mi configuración", viewDocs: "Ver documentación", logOut: "Cerrar sesión" },
  errors: {
    notFound: "No se pudo encontrar esta página",
    somethingWrong: "Algo salió mal.",
    cantFind: "No encontramos la página que buscas",
    backHome: "Volver a la página de inicio",
    pill: "Error {{status}}",
    unknown: "Se produjo un error inesperado",
  },
  breadcrumbs: { label: "Ruta de navegación", home: "Inicio", settings: "configuración", mySettings: "mi configuración" },
  userSettings: {
    title: "Mi configuración",
    profile: "Perfil",
    username: "Usuario",
    name: "Nombre",
    surname: "Apellido",
    role: "Rol",
    workspaces: "Espacios de trabajo",
    workspacesError: "No se pudieron cargar tus espacios de trabajo.",
    apiKey: "Clave API",
    apiKeyText: "Usa esta clave con el SDK de Python. Mantenla en secreto.",
    copyApiKey: "Copiar la clave API",
    apiKeyNew: "Copia tu nueva clave ahora: solo se muestra esta vez.",
    apiKeyHidden:
      "Las claves se guardan de forma que nadie puede volver a leerlas, tampoco tú. Genera una clave nueva para usar el SDK de Python; tu clave anterior deja de funcionar en el acto.",
    regenerateApiKey: "Generar una nueva clave de API",
    regenerateApiKeyError: "No se pudo generar una nueva clave de API. Inténtalo de nuevo.",
    appearance: "Apariencia e idioma",
    theme: "Tema",
    language: "Idioma",
  },
  theme: { system: "Predeterminado del sistema", light: "Claro", dark: "Oscuro" },
  toast: { close: "Cerrar notificación" },
  connectivity: { offline: "Estás sin conexión", online: "Vuelves a estar en línea" },
  persistentStorage: {
    adminOrOwner:
      "El almacenamiento persistente no está activado. Se perderán todos los datos si este space se reinicia. Actívalo en la configuración del space: {{settingsUrl}}",
    annotator: "El almacenamiento persistente no está activado. Se perderán todos los datos si este space se reinicia.",
  },
  welcome: {
    title: "Bienvenido a {{space}}",
    subtitle: "Únete al equipo para crear mejores datasets para IA",
    signInWithUsername: "Iniciar sesión con usuario",
  },
  oauth: {
    or: "o",
    signInWith: "Iniciar sesión con {{provider}}",
    signingIn: "Iniciando sesión con {{provider}}…",
    failedTitle: "No se pudo iniciar sesión",
    failed: "No se pudo iniciar sesión con {{provider}}. Puede que el enlace haya caducado o ya se haya usado. Inténtalo de nuevo.",
    backToSignIn: "Volver a iniciar sesión",
    spaceOwner: "Este espacio pertenece a {{owner}}.",
  },
  placeholders: {
    datasetCreation: "Crear un dataset",
    annotation: "Anotar",
    datasetSettings: "Configuración del dataset",
    comingSoon: "Esta página está en construcción.",
  },
  common: { loading: "Cargando…", copy: "Copiar", copied: "Copiado", skipToContent: "Saltar al contenido" },
  annotation: annotationEs,
  review: reviewEs,
  datasetSettings: datasetSettingsEs,
  datasetCreation: datasetCreationEs,
  offline: offlineEs,
  transfer: transferEs,
};
export default es;
