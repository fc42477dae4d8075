import type { Resources } from "./en";

const es: Resources = {
  brand: { name: "Tessera", claim: "Responde preguntas sobre tus datos, en equipo.", subclaim: "Etiqueta, ordena, valora y revisa registros con tu equipo." },
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
    columns: { dataset: "Dataset", workspace: "Espacio de trabajo", created: "Creado", updated: "Actualizado", progress: "Progreso del equipo" },
    loadError: "No se pudieron cargar tus datasets.",
  },
  user: { menu: "Menú de usuario", mySettings: "Mi configuración", viewDocs: "Ver documentación", logOut: "Cerrar sesión" },
  errors: {
    notFound: "No se pudo encontrar esta página",
    somethingWrong: "Algo salió mal.",
    cantFind: "No encontramos la página que buscas",
    backHome: "Volver a la página de inicio",
  },
  common: { loading: "Cargando…" },
};
export default es;
