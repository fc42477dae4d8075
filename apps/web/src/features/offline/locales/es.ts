/** Textos en español de las respuestas sin conexión. */
const offline = {
  waiting_one: "{{count}} respuesta pendiente de envío",
  waiting_other: "{{count}} respuestas pendientes de envío",
  choices_one: "{{count}} respuesta necesita tu decisión",
  choices_other: "{{count}} respuestas necesitan tu decisión",
  sendNow: "Enviar ahora",
  status: "Respuestas guardadas en este dispositivo",
  restored: "Restaurado desde este navegador: este formulario contiene trabajo que aún no se ha enviado.",
  queued: "Guardado en este dispositivo, se enviará cuando vuelva la conexión",
  formKept: "Tus cambios se guardan en este navegador",
  formNotKept: "Este navegador no puede guardar tus cambios: envíalos antes de cerrar la página.",
  storageUnavailable:
    "Este navegador no puede guardar tus respuestas en este dispositivo (ventana privada o sin almacenamiento): se envían al momento, y lo que aún no se ha enviado se pierde si se cierra la página.",
  bulkQueued_one: "Sin conexión: {{count}} respuesta se guarda en este dispositivo y se enviará cuando vuelva la conexión.",
  bulkQueued_other: "Sin conexión: {{count}} respuestas se guardan en este dispositivo y se enviarán cuando vuelva la conexión.",
  allNeedsConnection: "Responder todos los registros encontrados necesita conexión. Selecciona los registros de esta página.",
  conflict: {
    title: "Respuestas por decidir",
    changed: "Registro {{record}}: la respuesta cambió en el servidor después de que dieras la tuya.",
    refused: "Registro {{record}}: el servidor rechazó esta respuesta ({{status}}).",
    yours: "Tu respuesta",
    server: "En el servidor",
    none: "Sin respuesta (eliminada)",
    keepMine: "Conservar la mía",
    keepServer: "Conservar la del servidor",
    retry: "Reintentar",
    drop: "Descartar mi respuesta",
  },
  signOut: {
    title: "Trabajo aún no enviado",
    text: "{{answers}} respuestas y {{forms}} formularios tuyos solo están en este navegador. Al cerrar sesión se eliminan.",
    stay: "Seguir con la sesión",
    anyway: "Cerrar sesión y eliminarlos",
  },
};

export default offline;
