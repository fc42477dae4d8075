/** English texts of the dataset settings page (datasetSettings.*). de and es mirror these keys. */
const datasetSettings = {
  title: "Dataset settings",
  seeDataset: "See your dataset",
  tabsLabel: "Settings sections",
  tabs: { info: "Dataset info", fields: "Fields", questions: "Questions", metadata: "Metadata", vectors: "Vectors", records: "Add records", danger: "Danger zone" },
  loadFailed: "The dataset settings could not be loaded.",
  notAllowed: { title: "Not allowed", text: "Only admins and owners can change the settings of a dataset.", back: "Back to home page" },
  actions: { update: "Update", cancel: "Cancel", saving: "Saving…", saved: "Saved", reverted: "Not saved: the last saved value is back" },
  info: {
    name: "Dataset name", workspace: "Workspace", copyLink: "Copy link",
    guidelines: "Annotation guidelines", guidelinesHelp: "Markdown is supported. Annotators see these guidelines beside the records.",
    write: "Write", preview: "Preview",
    distribution: "Task distribution", minSubmitted: "Minimum submitted responses",
    minSubmittedHelp: "A record is complete when it has this many submitted responses.",
    allowExtraMetadata: "Allow extra metadata", allowExtraMetadataHelp: "Records may carry metadata that is not defined as a metadata property.",
  },
  fields: { title: "Title", useMarkdown: "Use Markdown", required: "Required", optional: "Optional", template: "Custom template", none: "This dataset has no fields." },
  questions: {
    title: "Title", description: "Description", labels: "Labels", labelText: "Text of the label {{value}}",
    moveUp: "Move {{label}} up", moveDown: "Move {{label}} down", visibleLabels: "Visible labels", suggestionsFirst: "Show suggestions first",
    useMarkdown: "Use Markdown", color: "Colour of {{label}}", colorHelp: "HSL, for example hsl(200, 80%, 80%)", colorPlaceholder: "hsl(200, 80%, 80%)",
    preview: "UI Preview", previewText: "This is how annotators will see the question.", required: "Required", optional: "Optional",
    none: "This dataset has no questions.",
  },
  sortable: {
    handle: "Drag {{label}} to reorder", roleDescription: "sortable label",
    instructions: "To pick up a label, press Space or Enter. Move it with the arrow keys, drop it with Space or Enter, or press Escape to cancel.",
    pickedUp: "Picked up {{label}}, position {{position}} of {{count}}.", movedOver: "{{label}} moved to position {{position}} of {{count}}.",
    dropped: "{{label}} dropped at position {{position}} of {{count}}.", cancelled: "Moving {{label}} was cancelled.",
  },
  questionTypes: { text: "Text", label_selection: "Label", multi_label_selection: "Multi-label", rating: "Rating", ranking: "Ranking", span: "Span" },
  fieldTypes: { text: "Text", image: "Image", chat: "Chat", custom: "Custom" },
  metadataTypes: { terms: "Terms", integer: "Integer", float: "Float" },
  metadata: { title: "Title", visibleForAnnotators: "Visible for annotators", none: "This dataset has no metadata properties." },
  vectors: { title: "Title", dimensions: "Dimensions: {{count}}", none: "This dataset has no vectors." },
  danger: {
    title: "Danger zone", deleteTitle: "Delete dataset", warning: "Be careful, this action is not reversible", delete: "Delete dataset",
    confirm: "You are about to delete {{dataset}} from workspace {{workspace}}. This action cannot be undone", yes: "Yes, delete", cancel: "Cancel",
  },
  validations: {
    required: "This field is required.",
    maxLength: "This must be less than {{limit}}.",
    colorMustBeHsl: "The value color must be HSL for now.",
    businessLogic: { update_distribution_with_existing_responses: { message: "Distribution settings can't be modified for a dataset containing user responses" } },
  },
};

export type DatasetSettingsTexts = typeof datasetSettings;
export default datasetSettings;
