import type { Message } from "../messages.js";

/** A rule of spec section 5 was broken; carries the i18n message. */
export class ValidationError extends Error {
  constructor(readonly detail: Message) {
    super(detail.text);
    this.name = "ValidationError";
  }
}
