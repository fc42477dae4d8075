/** Hub import mapping: fields, metadata and suggestions as source/target lists, plus an optional external_id column. */
export interface MappingItem { source: string; target: string }
export interface HubMapping {
  fields: MappingItem[];
  metadata: MappingItem[];
  suggestions: MappingItem[];
  external_id?: string | null;
}
