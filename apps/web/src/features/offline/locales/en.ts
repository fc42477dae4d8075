/** English texts of offline answers (the app's `offline` namespace object). */
const offline = {
  waiting_one: "{{count}} answer waiting to be sent",
  waiting_other: "{{count}} answers waiting to be sent",
  choices_one: "{{count}} answer needs your choice",
  choices_other: "{{count}} answers need your choice",
  sendNow: "Send now",
  status: "Answers kept on this device",
  restored: "Restored from this browser: this form holds work that has not been sent yet.",
  queued: "Kept on this device, sent when the connection is back",
  formKept: "Your changes are kept in this browser",
  formNotKept: "This browser cannot keep your changes: send them before you close the page.",
  storageUnavailable:
    "This browser cannot keep your answers on this device (private window or no storage): they are sent at once, and work not sent yet is lost if the page closes.",
  bulkQueued_one: "No connection: {{count}} answer is kept on this device and will be sent when the connection is back.",
  bulkQueued_other: "No connection: {{count}} answers are kept on this device and will be sent when the connection is back.",
  allNeedsConnection: "Answering all matched records needs a connection. Select the records on this page instead.",
  conflict: {
    title: "Answers to choose on",
    changed: "Record {{record}}: the answer changed on the server after you gave yours.",
    refused: "Record {{record}}: the server refused this answer ({{status}}).",
    yours: "Your answer",
    server: "On the server",
    none: "No answer (deleted)",
    keepMine: "Keep mine",
    keepServer: "Keep the server's",
    retry: "Try again",
    drop: "Drop my answer",
  },
  signOut: {
    title: "Work not sent yet",
    text: "{{answers}} answers and {{forms}} forms of yours are only on this browser. Signing out deletes them.",
    stay: "Stay signed in",
    anyway: "Sign out and delete them",
  },
};

export default offline;
