import { VECTOR_TITLE_MAX } from "../constants.js";
import { maxLengthMessage, type Message } from "../messages.js";

export interface VectorProps {
  id: string;
  name: string;
  title: string;
  dimensions: number;
  datasetId: string;
  updatedAt?: string;
}

/** A vector setting of a dataset; its title is editable (vector settings: id, title, datasetId). */
export class Vector {
  readonly id: string;
  readonly name: string;
  readonly dimensions: number;
  readonly datasetId: string;
  title: string;
  updatedAt: string | undefined;
  private originalTitle: string;

  constructor(props: VectorProps) {
    this.id = props.id;
    this.name = props.name;
    this.dimensions = props.dimensions;
    this.datasetId = props.datasetId;
    this.title = props.title;
    this.updatedAt = props.updatedAt;
    this.originalTitle = props.title;
  }

  get isModified(): boolean {
    return this.title !== this.originalTitle;
  }
  validate(): { title: Message[] } {
    return { title: this.title.length > VECTOR_TITLE_MAX ? [maxLengthMessage(VECTOR_TITLE_MAX)] : [] };
  }
  get isValid(): boolean {
    return this.validate().title.length === 0;
  }
  restore(): void {
    this.title = this.originalTitle;
  }
  commit(updatedAt?: string): void {
    if (updatedAt !== undefined) this.updatedAt = updatedAt;
    this.originalTitle = this.title;
  }
  /** The settings payload of an update. */
  get settings(): { id: string; title: string; datasetId: string } {
    return { id: this.id, title: this.title, datasetId: this.datasetId };
  }
}
