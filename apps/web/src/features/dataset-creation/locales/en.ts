/** English texts of the dataset creation page (datasetCreation.*). de and es mirror these keys. */
const datasetCreation = {
  title: "Create a dataset from {{repoId}}",
  loading: "Reading the dataset from Hugging Face…",
  datasetNotFound: "Dataset not found or available on Hugging Face",
  backHome: "Back to home page",
  noRepo: "Paste a repository id on the home page to start.",
  preview: { title: "Record preview", questions: "Question form preview", empty: "Your question will be here", noRow: "The first row could not be loaded." },
  subset: "Subset", subsetHelp: "You can create a dataset from only one subset.", split: "Split",
  columns: {
    title: "Columns", help: "Choose what each column of the dataset becomes.", type: "Type of {{column}}", required: "Required field",
    useMarkdown: "Use Markdown", externalId: "External id", externalIdHelp: "A column whose values identify the records.", none: "None",
    types: { text: "Text field", image: "Image field", chat: "Chat field", noMapping: "No mapping", terms: "Metadata: terms", integer: "Metadata: integer", float: "Metadata: float" },
  },
  questions: {
    title: "Questions", add: "Add question", addType: "Add a {{type}} question", remove: "Remove {{name}}", questionTitle: "Title", required: "Required",
    mapToColumn: "Map to column", noMapping: "No mapping", labels: "Labels", labelsHelp: "Use comma to separate labels", labelOrder: "Label order of {{name}}", labelOrderTitle: "Label order", newTitle: "{{type}} {{n}}",
    ratingFrom: "From", ratingTo: "To", spanField: "Annotate spans on:", useMarkdown: "Use Markdown",
    types: { text: "Text", label_selection: "Label", multi_label_selection: "Multi-label", rating: "Rating", ranking: "Ranking", span: "Span" },
    labelSelection: { atLeastTwoOptions: "At least two options are required", optionsWithoutLabel: "Empty options are not allowed" },
    rating: { atLeastTwoOptions: "At least two options are required" },
    span: { needsTextField: "A span question needs a text field to annotate" },
  },
  atLeastOneQuestion: "At least one question is required.",
  atLeastOneRequired: "At least one required question is needed.",
  hasInvalidQuestions: "Some questions are invalid",
  atLeastOneField: "At least one column must be mapped to a field.",
  atLeastOneRequiredField: "At least one field must be required.",
  create: {
    title: "Create the dataset", name: "Dataset name", nameRequired: "The dataset needs a name.", workspace: "Assign a workspace",
    newWorkspace: "New workspace", newWorkspaceName: "Name of the new workspace", workspaceRequired: "Choose a workspace or name a new one.",
    note: "The created dataset will include the first 10K rows and further records can be logged via the python SDK.",
    button: "Create dataset", creating: "Creating the dataset and importing the first rows…", failed: "The dataset could not be created. Nothing was kept; please check the settings and try again.",
  },
};

export type DatasetCreationTexts = typeof datasetCreation;
export default datasetCreation;
