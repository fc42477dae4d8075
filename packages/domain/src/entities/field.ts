import { FIELD_TITLE_MAX } from "../constants.js";
import { maxLengthMessage, type Message } from "../messages.js";

export type FieldType = "text" | "image" | "chat" | "custom";

export interface FieldSettings {
  type: FieldType;
  use_markdown?: boolean;
  /** Custom fields: the HTML template. */
  template?: string;
  advanced_mode?: boolean;
}

export interface FieldProps {
  id: string;
  name: string;
  title: string;
  required: boolean;
  datasetId: string;
  settings: FieldSettings;
  updatedAt?: string;
}

export interface ChatMessage {
  role: string;
  content: string;
}

/** Field content by type: text and image are strings, chat is a list of messages, custom is the raw record value. */
export type FieldContent = string | ChatMessage[] | unknown;

/** A dataset field definition; its title and use_markdown are editable in the settings (with a baseline). */
export class Field {
  readonly id: string;
  readonly name: string;
  readonly required: boolean;
  readonly datasetId: string;
  title: string;
  settings: FieldSettings;
  updatedAt: string | undefined;
  private original: { title: string; settings: FieldSettings };

  constructor(props: FieldProps) {
    this.id = props.id;
    this.name = props.name;
    this.required = props.required;
    this.datasetId = props.datasetId;
    this.title = props.title;
    this.settings = { ...props.settings };
    this.updatedAt = props.updatedAt;
    this.original = { title: this.title, settings: { ...this.settings } };
  }

  get type(): FieldType {
    return this.settings.type;
  }
  get isText(): boolean {
    return this.type === "text";
  }
  get isImage(): boolean {
    return this.type === "image";
  }
  get isChat(): boolean {
    return this.type === "chat";
  }
  get isCustom(): boolean {
    return this.type === "custom";
  }
  get useMarkdown(): boolean {
    return this.settings.use_markdown ?? false;
  }
  /** Custom fields take their template from the settings. */
  get template(): string {
    return this.settings.template ?? "";
  }

  get isModified(): boolean {
    return this.title !== this.original.title || JSON.stringify(this.settings) !== JSON.stringify(this.original.settings);
  }

  validate(): { title: Message[] } {
    return { title: this.title.length > FIELD_TITLE_MAX ? [maxLengthMessage(FIELD_TITLE_MAX)] : [] };
  }

  get isValid(): boolean {
    return this.validate().title.length === 0;
  }

  /** Restores the last saved values (Cancel, or a failed save). */
  restore(): void {
    this.title = this.original.title;
    this.settings = { ...this.original.settings };
  }

  /** A successful save: the current values become the baseline, with the returned updated_at. */
  commit(updatedAt?: string): void {
    if (updatedAt !== undefined) this.updatedAt = updatedAt;
    this.original = { title: this.title, settings: { ...this.settings } };
  }

  /** The title sent on update: the name when the title is empty. */
  get titleForUpdate(): string {
    return this.title.trim() === "" ? this.name : this.title;
  }

  toProps(): FieldProps {
    return {
      id: this.id,
      name: this.name,
      title: this.title,
      required: this.required,
      datasetId: this.datasetId,
      settings: { ...this.settings },
      ...(this.updatedAt ? { updatedAt: this.updatedAt } : {}),
    };
  }

  /** Normalizes a record's raw value for this field. */
  contentFrom(raw: unknown): FieldContent {
    return normalizeFieldContent(this.type, raw);
  }
}

/** Chat: a list of {content, role}; a plain string becomes one user message. Image: from a src value. */
export function normalizeFieldContent(type: FieldType, raw: unknown): FieldContent {
  switch (type) {
    case "chat":
      if (typeof raw === "string") return [{ role: "user", content: raw }];
      if (Array.isArray(raw)) {
        return raw.map((m: unknown) => {
          const msg = (m ?? {}) as { role?: unknown; content?: unknown };
          return { role: String(msg.role ?? "user"), content: String(msg.content ?? "") };
        });
      }
      return [];
    case "image":
      if (typeof raw === "string") return raw;
      if (raw && typeof raw === "object" && typeof (raw as { src?: unknown }).src === "string") return (raw as { src: string }).src;
      return "";
    case "text":
      return raw === null || raw === undefined ? "" : typeof raw === "string" ? raw : JSON.stringify(raw);
    default:
      return raw;
  }
}

/** A field of one record: the definition plus the record's content. */
export interface RecordField {
  field: Field;
  name: string;
  title: string;
  content: FieldContent;
}
