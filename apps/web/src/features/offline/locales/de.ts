/** Deutsche Texte der Offline-Antworten. */
const offline = {
  waiting_one: "{{count}} Antwort wartet auf das Senden",
  waiting_other: "{{count}} Antworten warten auf das Senden",
  choices_one: "{{count}} Antwort braucht deine Entscheidung",
  choices_other: "{{count}} Antworten brauchen deine Entscheidung",
  sendNow: "Jetzt senden",
  status: "Auf diesem Gerät gespeicherte Antworten",
  restored: "Aus diesem Browser wiederhergestellt: Dieses Formular enthält Arbeit, die noch nicht gesendet wurde.",
  queued: "Auf diesem Gerät gespeichert, wird gesendet, sobald die Verbindung zurück ist",
  formKept: "Deine Änderungen sind in diesem Browser gesichert",
  formNotKept: "Dieser Browser kann deine Änderungen nicht sichern: Sende sie, bevor du die Seite schließt.",
  storageUnavailable:
    "Dieser Browser kann deine Antworten nicht auf diesem Gerät sichern (privates Fenster oder kein Speicher): Sie werden sofort gesendet, und noch nicht Gesendetes geht verloren, wenn die Seite geschlossen wird.",
  bulkQueued_one:
    "Keine Verbindung: {{count}} Antwort ist auf diesem Gerät gespeichert und wird gesendet, sobald die Verbindung zurück ist.",
  bulkQueued_other:
    "Keine Verbindung: {{count}} Antworten sind auf diesem Gerät gespeichert und werden gesendet, sobald die Verbindung zurück ist.",
  allNeedsConnection: "Alle gefundenen Datensätze zu beantworten braucht eine Verbindung. Wähle stattdessen die Datensätze dieser Seite.",
  conflict: {
    title: "Antworten zur Auswahl",
    changed: "Datensatz {{record}}: Die Antwort wurde auf dem Server geändert, nachdem du deine gegeben hast.",
    refused: "Datensatz {{record}}: Der Server hat diese Antwort abgelehnt ({{status}}).",
    yours: "Deine Antwort",
    server: "Auf dem Server",
    none: "Keine Antwort (gelöscht)",
    keepMine: "Meine behalten",
    keepServer: "Die des Servers behalten",
    retry: "Erneut versuchen",
    drop: "Meine Antwort verwerfen",
  },
  signOut: {
    title: "Noch nicht gesendete Arbeit",
    text: "{{answers}} Antworten und {{forms}} Formulare von dir gibt es nur in diesem Browser. Beim Abmelden werden sie gelöscht.",
    stay: "Angemeldet bleiben",
    anyway: "Abmelden und löschen",
  },
};

export default offline;
