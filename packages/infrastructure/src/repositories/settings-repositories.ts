import type { KyInstance } from "ky";
import {
  ErrorCode,
  type FieldCreate,
  type FieldProps,
  type FieldRepository,
  type FieldSettings,
  type MetadataCreate,
  type MetadataMetrics,
  type MetadataPropertyProps,
  type MetadataRepository,
  type QuestionCreate,
  type QuestionProps,
  type QuestionRepository,
  type QuestionSettings,
  type VectorProps,
  type VectorRepository,
} from "@tessera/domain";
import { call, seg } from "../http/call.js";
import {
  toField,
  toMetadata,
  toQuestion,
  toVector,
  type BackendField,
  type BackendMetadata,
  type BackendQuestion,
  type BackendVector,
} from "../mappers/wire.js";

export class HttpFieldRepository implements FieldRepository {
  constructor(private readonly http: KyInstance) {}
  list(datasetId: string): Promise<FieldProps[]> {
    return call(ErrorCode.ERROR_FETCHING_FIELDS, async () =>
      (await this.http.get(`v1/datasets/${seg(datasetId)}/fields`).json<{ items: BackendField[] }>()).items.map(toField),
    );
  }
  create(datasetId: string, field: FieldCreate): Promise<FieldProps> {
    return call(ErrorCode.ERROR_PATCHING_FIELDS, async () =>
      toField(await this.http.post(`v1/datasets/${seg(datasetId)}/fields`, { json: field }).json<BackendField>()),
    );
  }
  update(fieldId: string, change: { title: string; settings: FieldSettings }): Promise<FieldProps> {
    return call(ErrorCode.ERROR_PATCHING_FIELDS, async () =>
      toField(await this.http.patch(`v1/fields/${seg(fieldId)}`, { json: change }).json<BackendField>()),
    );
  }
}

export class HttpQuestionRepository implements QuestionRepository {
  constructor(private readonly http: KyInstance) {}
  list(datasetId: string): Promise<QuestionProps[]> {
    return call(ErrorCode.ERROR_FETCHING_QUESTIONS, async () =>
      (await this.http.get(`v1/datasets/${seg(datasetId)}/questions`).json<{ items: BackendQuestion[] }>()).items.map(toQuestion),
    );
  }
  create(datasetId: string, question: QuestionCreate): Promise<QuestionProps> {
    return call(ErrorCode.ERROR_PATCHING_QUESTIONS, async () =>
      toQuestion(await this.http.post(`v1/datasets/${seg(datasetId)}/questions`, { json: question }).json<BackendQuestion>()),
    );
  }
  update(questionId: string, change: { title: string; description: string | null; settings: QuestionSettings }): Promise<QuestionProps> {
    return call(ErrorCode.ERROR_PATCHING_QUESTIONS, async () =>
      toQuestion(await this.http.patch(`v1/questions/${seg(questionId)}`, { json: change }).json<BackendQuestion>()),
    );
  }
}

type BackendMetrics =
  | { type: "terms"; total?: number; values: Array<{ term: string | number; count: number }> }
  | { type: "integer" | "float"; min: number | null; max: number | null };

export class HttpMetadataRepository implements MetadataRepository {
  constructor(private readonly http: KyInstance) {}
  list(datasetId: string): Promise<MetadataPropertyProps[]> {
    return call(ErrorCode.ERROR_FETCHING_METADATA, async () =>
      (await this.http.get(`v1/me/datasets/${seg(datasetId)}/metadata-properties`).json<{ items: BackendMetadata[] }>()).items.map(
        toMetadata,
      ),
    );
  }
  create(datasetId: string, m: MetadataCreate): Promise<MetadataPropertyProps> {
    return call(ErrorCode.ERROR_CREATING_METADATA, async () => {
      const json = {
        name: m.name,
        title: m.title,
        settings: m.settings,
        ...(m.visibleForAnnotators !== undefined ? { visible_for_annotators: m.visibleForAnnotators } : {}),
      };
      return toMetadata(await this.http.post(`v1/datasets/${seg(datasetId)}/metadata-properties`, { json }).json<BackendMetadata>());
    });
  }
  update(metadataId: string, change: { title: string; visibleForAnnotators: boolean }): Promise<MetadataPropertyProps> {
    return call(ErrorCode.ERROR_UPDATING_METADATA, async () =>
      toMetadata(
        await this.http
          .patch(`v1/metadata-properties/${seg(metadataId)}`, {
            json: { title: change.title, visible_for_annotators: change.visibleForAnnotators },
          })
          .json<BackendMetadata>(),
      ),
    );
  }
  getMetrics(metadataId: string): Promise<MetadataMetrics> {
    return call(ErrorCode.ERROR_FETCHING_METADATA_METRIC, async () => {
      const m = await this.http.get(`v1/metadata-properties/${seg(metadataId)}/metrics`).json<BackendMetrics>();
      return m.type === "terms"
        ? { type: "terms", ...(m.total !== undefined ? { total: m.total } : {}), terms: m.values }
        : { type: m.type, min: m.min, max: m.max };
    });
  }
}

export class HttpVectorRepository implements VectorRepository {
  constructor(private readonly http: KyInstance) {}
  list(datasetId: string): Promise<VectorProps[]> {
    return call(ErrorCode.ERROR_FETCHING_VECTORS, async () =>
      (await this.http.get(`v1/datasets/${seg(datasetId)}/vectors-settings`).json<{ items: BackendVector[] }>()).items.map(toVector),
    );
  }
  update(vectorId: string, change: { title: string }): Promise<VectorProps> {
    return call(ErrorCode.ERROR_PATCHING_VECTORS, async () =>
      toVector(await this.http.patch(`v1/vectors-settings/${seg(vectorId)}`, { json: change }).json<BackendVector>()),
    );
  }
}
