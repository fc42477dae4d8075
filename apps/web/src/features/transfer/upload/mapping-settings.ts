import type { DatasetSettings, MappingSettings } from "@tessera/domain";

/** The names an upload can map columns onto (memoised per settings object, so the panel keeps its state). */
const cache = new WeakMap<DatasetSettings, MappingSettings>();
export function mappingSettingsOf(settings: DatasetSettings): MappingSettings {
  let names = cache.get(settings);
  if (!names) {
    names = {
      fields: settings.fields.map((f) => f.name),
      questions: settings.questions.map((q) => q.name),
      metadata: settings.metadata.map((m) => m.name),
      vectors: settings.vectors.map((v) => v.name),
    };
    cache.set(settings, names);
  }
  return names;
}
