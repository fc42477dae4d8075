import { MESSAGES, type Message } from "../messages.js";

export type DatasetStatus = "draft" | "ready";

export interface DistributionProps {
  strategy: "overlap";
  minSubmitted: number;
}

export interface DatasetProps {
  id: string;
  name: string;
  guidelines: string | null;
  status: DatasetStatus;
  workspaceId: string;
  workspaceName: string;
  allowExtraMetadata: boolean;
  distribution: DistributionProps;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string;
}

export type DatasetPart = "guidelines" | "distribution" | "allowExtraMetadata";

/** A change sent to PATCH /v1/datasets/{id}. */
export interface DatasetChange {
  guidelines?: string;
  distribution?: DistributionProps;
  allowExtraMetadata?: boolean;
}

/**
 * A dataset. Guidelines, distribution and allowExtraMetadata are editable in the settings, each
 * against its last saved value (restore on Cancel or a failed save).
 */
export class Dataset {
  guidelines: string | null;
  distribution: DistributionProps;
  allowExtraMetadata: boolean;
  private updated: string;
  private original: { guidelines: string | null; distribution: DistributionProps; allowExtraMetadata: boolean };

  constructor(private readonly props: DatasetProps) {
    this.guidelines = props.guidelines;
    this.distribution = { ...props.distribution };
    this.allowExtraMetadata = props.allowExtraMetadata;
    this.updated = props.updatedAt;
    this.original = { guidelines: this.guidelines, distribution: { ...this.distribution }, allowExtraMetadata: this.allowExtraMetadata };
  }
  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get status(): DatasetStatus {
    return this.props.status;
  }
  get workspaceId(): string {
    return this.props.workspaceId;
  }
  get workspaceName(): string {
    return this.props.workspaceName;
  }
  get metadata(): Record<string, unknown> | null {
    return this.props.metadata;
  }
  get createdAt(): string {
    return this.props.createdAt;
  }
  get updatedAt(): string {
    return this.updated;
  }
  get lastActivityAt(): string {
    return this.props.lastActivityAt;
  }
  /** A dataset counts as created from the UI when its metadata has a repoId (spec section 3). */
  get createdFromUI(): boolean {
    return typeof this.props.metadata?.["repoId"] === "string";
  }

  isModified(part: DatasetPart): boolean {
    if (part === "distribution")
      return (
        this.distribution.minSubmitted !== this.original.distribution.minSubmitted ||
        this.distribution.strategy !== this.original.distribution.strategy
      );
    return this[part] !== this.original[part];
  }
  get isModifiedAny(): boolean {
    return this.isModified("guidelines") || this.isModified("distribution") || this.isModified("allowExtraMetadata");
  }

  /** Guidelines required (non-empty after trimming); minSubmitted required and at least 1. */
  validate(): { guidelines: Message[]; distribution: Message[] } {
    const guidelines = (this.guidelines ?? "").trim() === "" ? [MESSAGES.required] : [];
    const min = this.distribution.minSubmitted;
    const distribution = !Number.isFinite(min) || min < 1 ? [MESSAGES.required] : [];
    return { guidelines, distribution };
  }
  isValid(part: DatasetPart): boolean {
    if (part === "allowExtraMetadata") return true;
    return this.validate()[part].length === 0;
  }

  /** The PATCH body for one part (guidelines trimmed on save). */
  changeFor(part: DatasetPart): DatasetChange {
    if (part === "guidelines") return { guidelines: (this.guidelines ?? "").trim() };
    if (part === "distribution") return { distribution: { ...this.distribution } };
    return { allowExtraMetadata: this.allowExtraMetadata };
  }

  /** Reverts one part to its last saved value. */
  restore(part: DatasetPart): void {
    if (part === "guidelines") this.guidelines = this.original.guidelines;
    else if (part === "distribution") this.distribution = { ...this.original.distribution };
    else this.allowExtraMetadata = this.original.allowExtraMetadata;
  }

  /** A successful save of one part: it becomes the baseline and updatedAt takes the returned updated_at. */
  commit(part: DatasetPart, updatedAt: string): void {
    if (part === "guidelines") {
      this.guidelines = (this.guidelines ?? "").trim();
      this.original.guidelines = this.guidelines;
    } else if (part === "distribution") this.original.distribution = { ...this.distribution };
    else this.original.allowExtraMetadata = this.allowExtraMetadata;
    this.updated = updatedAt;
  }
}
