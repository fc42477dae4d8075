/** English texts of the annotation screen (merged into the app's `annotation` namespace object). */
const annotation = {
  loading: "Loading records…",
  loadError: "The records could not be loaded.",
  status: { pending: "Pending", draft: "Draft", submitted: "Submitted", discarded: "Discarded" },
  nav: { label: "Record navigation", previous: "Previous (←)", next: "Next (→)", position: "Record {{page}} of {{total}}" },
  view: { label: "View", focus: "Focus view", bulk: "Bulk view" },
  form: {
    label: "Questions", submit: "Submit", draft: "Save as draft", discard: "Discard", clear: "Clear", reset: "Reset",
    saving: "Saving", saved: "Saved", completeRequired: "To submit complete required responses",
  },
  questions: {
    requiredResponse: "Required response", optional: "(optional)", searchLabels: "Search labels", less: "Less",
    write: "Write", preview: "Preview", textPlaceholder: "Write your answer",
  },
  suggestion: { label: "Suggestion", tooltip: "Suggestion by {{agent}}", aria: "Suggestion, score {{score}}, by {{agent}}" },
  ranking: { card: "Rankable option", rankedAs: "{{option}}, rank {{rank}}", slot: "Rank {{rank}}", unranked: "Unranked options" },
  span: {
    notSupported: "Span annotation is not supported for your browser",
    cursor: "Select text to label it as {{entity}}",
    shiftHint: "Hold 'Shift' to select character level",
    remove: "Remove {{label}} from \"{{text}}\"",
    instructions: "Pick a label, then select text in the record to annotate it ({{count}} spans).",
  },
  fields: { imageError: "Could not load image", copy: "Copy to clipboard" },
  record: { label: "Record", info: "Record info", completeTooltip: "The record is complete, it has the minimum number of responses" },
  guard: { message: "You didn't submit your changes", ignore: "Ignore and continue", close: "Close" },
  empty: {
    noMatch: "You have no {{status}} records matching your query",
    datasetEmpty: "The dataset is empty",
    taskCompleted: "🎉 The task is completed!",
    noPending: "You have no pending records to annotate",
    noSubmitted: "You have not submitted any record yet",
    noDraft: "You have no draft records to review",
    noDiscarded: "You have no discarded records",
  },
  filters: {
    search: "Search records", searchPlaceholder: "Introduce a query", searchField: "Search in", allFields: "All fields", searchButton: "Search",
    status: "Status", metadata: "Metadata", sort: "Sort", noSort: "Default order", insertedAt: "Inserted at", updatedAt: "Updated at",
    order: "Order", asc: "Ascending", desc: "Descending", reset: "Reset", from: "From", to: "To", apply: "Apply", remove: "Remove filter {{name}}",
    responsesOf: "Responses to {{question}}", responses: "Responses", suggestions: "Suggestions", question: "Question", property: "Filter on",
    suggestionValue: "Suggestion values", score: "Score", agent: "Agent", noAgents: "No agents for this question",
    thenBy: "Then by", orderOf: "Order of {{name}}", addSort: "+ Add another field", removeSort: "Remove sort by {{name}}",
    sortGroup: { general: "General", metadata: "Metadata", suggestions: "Suggestions", responses: "Responses" },
    sortSuggestionScore: "Suggestion score: {{question}}", sortSuggestionValue: "Suggestion value: {{question}}", sortResponseValue: "Response value: {{question}}",
    responseMode: "Filter by", values: "Values", range: "Range", exactAnswer: "Exact answer",
    noTerms: "No values observed yet", observedRange: "Observed: {{min}} to {{max}}",
  },
  similarity: {
    find: "Find similar", using: "Similar using", order: "Order", most: "Most similar", least: "Least similar", limit: "Record number",
    search: "Search", score: "Similarity Score {{score}}%", similarTo: "{{order}} records using {{vector}}", clear: "Clear similarity",
  },
  bulk: {
    selectAll: "Select all", selectRecord: "Select record {{id}}",
    selected_one: "{{count}} record selected", selected_other: "{{count}} records selected",
    selectAllMatched: "Select all {{total}} matched records", allSelected: "You have selected all {{total}} records", cancel: "Cancel",
    pageSize: "Records per page", page: "Page {{page}} of {{pages}}", expand: "Expand records", collapse: "Collapse records",
    noneSelected: "No record selected", progress: "Bulk annotation progress", someFailed: "Some records failed to annotate",
    confirmTitle: "Bulk action confirmation", confirmText: "This action will affect {{total}} records, do you want to continue?", continue: "Continue",
    done: {
      submitted: "The {{total}} records have been submitted", discarded: "The {{total}} records have been discarded", draft: "The {{total}} records have been saved as draft",
    },
  },
  guidelines: { title: "Guidelines", none: "This dataset has no annotation guidelines" },
  progress: { mine: "My progress", mineSummary: "{{percent}}% responded ({{responded}} of {{total}})", team: "Team progress", completed: "{{percent}}% completed ({{completed}} of {{total}})", teamTooltip: "{{completed}} of {{total}} records completed" },
  shortcuts: {
    open: "Shortcuts", title: "Keyboard shortcuts", close: "Close",
    submit: "Submit", discard: "Discard", draft: "Save as draft", nextRecord: "Next record", previousRecord: "Previous record",
    moveQuestions: "Move between questions", selectLabel: "Select or unselect a label", moveLabels: "Move between labels or ranking options",
    rank: "Rank the focused option / unrank it", textArea: "Activate / exit the text area", characterSpan: "Hold to select spans at character level",
  },
};

export default annotation;
