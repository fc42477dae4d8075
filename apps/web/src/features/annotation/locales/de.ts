import type en from "./en";

/** German texts of the annotation screen. */
const annotation: typeof en = {
  loading: "Datensätze werden geladen…",
  loadError: "Die Datensätze konnten nicht geladen werden.",
  status: { pending: "Ausstehend", draft: "Entwurf", submitted: "Übermittelt", discarded: "Verworfen" },
  nav: { label: "Navigation zwischen Datensätzen", previous: "Zurück (←)", next: "Weiter (→)", position: "Datensatz {{page}} von {{total}}" },
  view: { label: "Ansicht", focus: "Fokusansicht", bulk: "Massenansicht" },
  form: {
    label: "Fragen", submit: "Übermitteln", draft: "Als Entwurf speichern", discard: "Verwerfen", clear: "Leeren", reset: "Zurücksetzen",
    saving: "Wird gespeichert", saved: "Gespeichert", completeRequired: "Zum Übermitteln die erforderlichen Antworten ausfüllen",
  },
  questions: {
    requiredResponse: "Erforderliche Antwort", optional: "(optional)", searchLabels: "Labels suchen", less: "Weniger",
    write: "Schreiben", preview: "Vorschau", textPlaceholder: "Antwort schreiben",
  },
  suggestion: { label: "Vorschlag", tooltip: "Vorschlag von {{agent}}", aria: "Vorschlag, Wert {{score}}, von {{agent}}" },
  ranking: { card: "Sortierbare Option", rankedAs: "{{option}}, Rang {{rank}}", slot: "Rang {{rank}}", unranked: "Nicht eingeordnete Optionen" },
  span: {
    notSupported: "Span-Annotation wird von Ihrem Browser nicht unterstützt",
    cursor: "Text auswählen, um ihn als {{entity}} zu markieren",
    shiftHint: "'Umschalt' gedrückt halten, um zeichengenau auszuwählen",
    remove: "{{label}} von „{{text}}“ entfernen",
    instructions: "Label wählen und dann Text im Datensatz markieren ({{count}} Spans).",
  },
  fields: { imageError: "Bild konnte nicht geladen werden", copy: "In die Zwischenablage kopieren" },
  record: { label: "Datensatz", info: "Datensatz-Info", completeTooltip: "Der Datensatz ist vollständig, er hat die Mindestanzahl an Antworten" },
  saveFailed: { message: "Ihre Antwort zu Datensatz {{page}} wurde nicht gespeichert", goTo: "Zu Datensatz {{page}}", retry: "Erneut versuchen", badge: "Nicht gespeichert" },
  guard: { message: "Sie haben Ihre Änderungen nicht übermittelt", ignore: "Ignorieren und fortfahren", close: "Schließen" },
  empty: {
    noMatch: "Sie haben keine Datensätze mit Status {{status}}, die Ihrer Suche entsprechen",
    datasetEmpty: "Der Datensatz ist leer",
    taskCompleted: "🎉 Die Aufgabe ist erledigt!",
    noPending: "Sie haben keine ausstehenden Datensätze zu annotieren",
    noSubmitted: "Sie haben noch keinen Datensatz übermittelt",
    noDraft: "Sie haben keine Entwürfe zu prüfen",
    noDiscarded: "Sie haben keine verworfenen Datensätze",
  },
  filters: {
    filters: "Filter", activeSuffix_one: "aktiv", activeSuffix_other: "aktiv", searchValues: "Suchen", searchValuesOf: "{{name}} durchsuchen", noMatches: "Keine Treffer", minimumOf: "Minimum von {{name}}", maximumOf: "Maximum von {{name}}", back: "Zurück zur Liste", searchIn: "{{category}} durchsuchen", active: "Aktive Filter", nothingToFilter: "In diesem Datensatz gibt es nichts zu filtern", edit: "{{name}} bearbeiten",
    search: "Datensätze durchsuchen", searchPlaceholder: "Suchbegriff eingeben", searchField: "Suchen in", allFields: "Alle Felder", searchButton: "Suchen",
    status: "Status", metadata: "Metadaten", sort: "Sortierung", noSort: "Standardreihenfolge", insertedAt: "Eingefügt am", updatedAt: "Aktualisiert am",
    order: "Reihenfolge", asc: "Aufsteigend", desc: "Absteigend", reset: "Zurücksetzen", from: "Von", to: "Bis", apply: "Anwenden", remove: "Filter {{name}} entfernen",
    responsesOf: "Antworten auf {{question}}", responses: "Antworten", suggestions: "Vorschläge", question: "Frage", property: "Filtern nach",
    suggestionValue: "Vorgeschlagene Werte", score: "Bewertung", agent: "Agent", noAgents: "Keine Agenten für diese Frage",
    thenBy: "Danach nach", orderOf: "Reihenfolge von {{name}}", addSort: "+ Weiteres Feld hinzufügen", removeSort: "Sortierung nach {{name}} entfernen",
    sortGroup: { general: "Allgemein", metadata: "Metadaten", suggestions: "Vorschläge", responses: "Antworten" },
    sortSuggestionScore: "Vorschlagsbewertung: {{question}}", sortSuggestionValue: "Vorgeschlagener Wert: {{question}}", sortResponseValue: "Antwortwert: {{question}}",
    responseMode: "Filtern nach", values: "Werte", range: "Bereich", exactAnswer: "Genaue Antwort",
    noTerms: "Noch keine Werte beobachtet", observedRange: "Beobachtet: {{min}} bis {{max}}",
  },
  similarity: {
    find: "Ähnliche finden", using: "Ähnlich nach", order: "Reihenfolge", most: "Am ähnlichsten", least: "Am wenigsten ähnlich", limit: "Anzahl Datensätze",
    search: "Suchen", score: "Ähnlichkeit {{score}} %", similarTo: "{{order}}: Datensätze nach {{vector}}", clear: "Ähnlichkeitssuche aufheben",
  },
  bulk: {
    showMore: "Mehr anzeigen", showLess: "Weniger anzeigen",
    selectAll: "Alle auswählen", selectRecord: "Datensatz {{id}} auswählen",
    selected_one: "{{count}} Datensatz ausgewählt", selected_other: "{{count}} Datensätze ausgewählt",
    selectAllMatched: "Alle {{total}} passenden Datensätze auswählen", allSelected: "Sie haben alle {{total}} Datensätze ausgewählt", cancel: "Abbrechen",
    pageSize: "Datensätze pro Seite", page: "Seite {{page}} von {{pages}}", expand: "Datensätze aufklappen", collapse: "Datensätze einklappen",
    noneSelected: "Kein Datensatz ausgewählt", progress: "Fortschritt der Massenannotation", someFailed: "Einige Datensätze konnten nicht annotiert werden",
    confirmTitle: "Massenaktion bestätigen", confirmText: "Diese Aktion betrifft {{total}} Datensätze. Möchten Sie fortfahren?", continue: "Fortfahren",
    done: {
      submitted: "Die {{total}} Datensätze wurden übermittelt", discarded: "Die {{total}} Datensätze wurden verworfen", draft: "Die {{total}} Datensätze wurden als Entwurf gespeichert",
    },
  },
  guidelines: { title: "Richtlinien", none: "Dieser Datensatz hat keine Annotationsrichtlinien" },
  progress: { mine: "Mein Fortschritt", mineSummary: "{{percent}} % beantwortet ({{responded}} von {{total}})", team: "Team-Fortschritt", completed: "{{percent}} % erledigt ({{completed}} von {{total}})", teamTooltip: "{{completed}} von {{total}} Datensätzen erledigt" },
  shortcuts: {
    open: "Tastenkürzel", title: "Tastenkürzel", close: "Schließen",
    submit: "Übermitteln", discard: "Verwerfen", draft: "Als Entwurf speichern", nextRecord: "Nächster Datensatz", previousRecord: "Vorheriger Datensatz",
    moveQuestions: "Zwischen Fragen wechseln", selectLabel: "Label aus- oder abwählen", moveLabels: "Zwischen Labels oder Rangoptionen wechseln",
    rank: "Fokussierte Option einordnen / Einordnung entfernen", textArea: "Textfeld aktivieren / verlassen", characterSpan: "Gedrückt halten für zeichengenaue Spans",
  },
};

export default annotation;
