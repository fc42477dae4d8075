import { METADATA_TITLE_MAX } from "../constants.js";
import { maxLengthMessage, type Message } from "../messages.js";

export type MetadataType = "terms" | "integer" | "float";

export interface MetadataSettings {
  type: MetadataType;
  /** terms: the allowed values (null: any). */
  values?: Array<string | number> | null;
  /** integer and float bounds. */
  min?: number | null;
  max?: number | null;
}

export interface MetadataPropertyProps {
  id: string;
  name: string;
  title: string;
  settings: MetadataSettings;
  visibleForAnnotators: boolean;
  datasetId: string;
  updatedAt?: string;
}

/** Metadata metrics: a terms list with term entries, or min and max. */
export type MetadataMetrics =
  | { type: "terms"; total?: number; terms: Array<{ term: string | number; count: number }> }
  | { type: "integer" | "float"; min: number | null; max: number | null };

export class MetadataProperty {
  readonly id: string;
  readonly name: string;
  readonly settings: MetadataSettings;
  readonly datasetId: string;
  title: string;
  visibleForAnnotators: boolean;
  updatedAt: string | undefined;
  metrics: MetadataMetrics | null = null;
  private original: { title: string; visibleForAnnotators: boolean };

  constructor(props: MetadataPropertyProps) {
    this.id = props.id;
    this.name = props.name;
    this.settings = props.settings;
    this.datasetId = props.datasetId;
    this.title = props.title;
    this.visibleForAnnotators = props.visibleForAnnotators;
    this.updatedAt = props.updatedAt;
    this.original = { title: this.title, visibleForAnnotators: this.visibleForAnnotators };
  }

  get type(): MetadataType {
    return this.settings.type;
  }
  get isTerms(): boolean {
    return this.type === "terms";
  }
  get isNumeric(): boolean {
    return this.type === "integer" || this.type === "float";
  }

  get isModified(): boolean {
    return this.title !== this.original.title || this.visibleForAnnotators !== this.original.visibleForAnnotators;
  }
  validate(): { title: Message[] } {
    return { title: this.title.length > METADATA_TITLE_MAX ? [maxLengthMessage(METADATA_TITLE_MAX)] : [] };
  }
  get isValid(): boolean {
    return this.validate().title.length === 0;
  }
  restore(): void {
    this.title = this.original.title;
    this.visibleForAnnotators = this.original.visibleForAnnotators;
  }
  commit(updatedAt?: string): void {
    if (updatedAt !== undefined) this.updatedAt = updatedAt;
    this.original = { title: this.title, visibleForAnnotators: this.visibleForAnnotators };
  }
}

/** Annotators see only metadata properties flagged visibleForAnnotators. */
export function visibleMetadataFor(properties: MetadataProperty[], isAdminOrOwner: boolean): MetadataProperty[] {
  return isAdminOrOwner ? properties : properties.filter((p) => p.visibleForAnnotators);
}
