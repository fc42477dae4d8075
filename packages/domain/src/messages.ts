/**
 * User-facing texts of the spec, as i18n keys with their English text. The domain returns
 * these; the web app translates the key (falling back to the English text).
 */
export interface Message {
  key: string;
  text: string;
  params?: { [name: string]: string | number };
}

export const MESSAGES = {
  required: { key: "validations.required", text: "This field is required." },
  atLeastTwoOptions: { key: "datasetCreation.questions.labelSelection.atLeastTwoOptions", text: "At least two options are required" },
  optionsWithoutLabel: { key: "datasetCreation.questions.labelSelection.optionsWithoutLabel", text: "Empty options are not allowed" },
  ratingAtLeastTwoOptions: { key: "datasetCreation.questions.rating.atLeastTwoOptions", text: "At least two options are required" },
  atLeastOneQuestion: { key: "datasetCreation.atLeastOneQuestion", text: "At least one question is required." },
  atLeastOneRequired: { key: "datasetCreation.atLeastOneRequired", text: "At least one required question is needed." },
  hasInvalidQuestions: { key: "datasetCreation.hasInvalidQuestions", text: "Some questions are invalid" },
  incompleteRecord: { key: "validations.incompleteRecord", text: "To submit complete required responses" },
  colorMustBeHsl: { key: "validations.colorMustBeHsl", text: "The value color must be HSL for now." },
  spanUnsupported: { key: "spanAnnotation.notSupported", text: "Span annotation is not supported for your browser" },
  wrongCredentials: { key: "login.wrongCredentials", text: "Wrong username or password. Try again" },
  someRecordsFailed: { key: "bulkAnnotation.someRecordsFailed", text: "Some records failed to annotate" },
  http401: { key: "validations.http.401.message", text: "Could not validate credentials" },
  http404: { key: "validations.http.404.message", text: "Could not find the requested resource" },
  http429: { key: "validations.http.429.message", text: "Please wait a few seconds before trying again" },
  http500: { key: "validations.http.500.message", text: "An error occurred, please try again later" },
  missingVector: { key: "validations.businessLogic.missing_vector.message", text: "Vector not found for the selected record" },
  updateDistributionWithExistingResponses: {
    key: "validations.businessLogic.update_distribution_with_existing_responses.message",
    text: "Distribution settings can't be modified for a dataset containing user responses",
  },
  offline: { key: "offline", text: "You are offline" },
  online: { key: "onlineAgain", text: "You are online again" },
  pageNotFound: { key: "pageNotFound", text: "This page could not be found" },
  datasetNotFoundOnHub: { key: "datasetCreation.datasetNotFound", text: "Dataset not found or available on Hugging Face" },
  changesNotSubmitted: { key: "changes_no_submit", text: "You didn't submit your changes" },
  couldNotLoadImage: { key: "couldNotLoadImage", text: "Could not load image" },
} as const satisfies { [name: string]: Message };

/** 'This must be less than {limit}.' */
export function maxLengthMessage(limit: number): Message {
  return { key: "validations.maxLength", text: `This must be less than ${limit}.`, params: { limit } };
}

/** The status messages of the failed-request handler (spec section 8). */
export const HTTP_STATUS_MESSAGES: { readonly [status: number]: Message } = {
  401: MESSAGES.http401,
  404: MESSAGES.http404,
  429: MESSAGES.http429,
  500: MESSAGES.http500,
};

/** The business codes of the failed-request handler (spec section 8). */
export const BUSINESS_CODE_MESSAGES: { readonly [code: string]: Message } = {
  missing_vector: MESSAGES.missingVector,
  update_distribution_with_existing_responses: MESSAGES.updateDistributionWithExistingResponses,
};

/** Thrown for a question type the domain does not know. */
export class UnknownQuestionTypeError extends Error {
  constructor(readonly type: string) {
    super(`Question answer for type ${type} is not implemented yet.`);
    this.name = "UnknownQuestionTypeError";
  }
}

/** Thrown when a settings entity is not valid for an update. */
export class InvalidSettingsUpdateError extends Error {
  constructor(kind: "Question" | "Field" | "Vector" | "Metadata") {
    super(`${kind} is not valid for update`);
    this.name = "InvalidSettingsUpdateError";
  }
}
