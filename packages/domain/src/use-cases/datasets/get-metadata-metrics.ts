import type { MetadataMetrics, MetadataProperty } from "../../entities/metadata.js";
import type { MetadataRepository } from "../../ports/settings-repositories.js";

/** Loads a metadata property's metrics (terms, or min and max) into it. */
export class GetMetadataMetricsUseCase {
  constructor(private readonly metadata: MetadataRepository) {}
  async execute(property: MetadataProperty): Promise<MetadataMetrics> {
    property.metrics = await this.metadata.getMetrics(property.id);
    return property.metrics;
  }
}
