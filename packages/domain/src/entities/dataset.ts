export type DatasetStatus = "draft" | "ready";

export interface DistributionProps { strategy: "overlap"; minSubmitted: number; }

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

export class Dataset {
  constructor(private readonly props: DatasetProps) {}
  get id(): string { return this.props.id; }
  get name(): string { return this.props.name; }
  get guidelines(): string | null { return this.props.guidelines; }
  get status(): DatasetStatus { return this.props.status; }
  get workspaceId(): string { return this.props.workspaceId; }
  get workspaceName(): string { return this.props.workspaceName; }
  get allowExtraMetadata(): boolean { return this.props.allowExtraMetadata; }
  get distribution(): DistributionProps { return this.props.distribution; }
  get metadata(): Record<string, unknown> | null { return this.props.metadata; }
  get createdAt(): string { return this.props.createdAt; }
  get updatedAt(): string { return this.props.updatedAt; }
  get lastActivityAt(): string { return this.props.lastActivityAt; }
  /** A dataset counts as created from the UI when its metadata has a repoId (spec section 3). */
  get createdFromUI(): boolean { return typeof this.props.metadata?.["repoId"] === "string"; }
}
