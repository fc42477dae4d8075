/** Limits of file uploads (docs/api.md "Record uploads"). */
export interface UploadConfig {
  /** Largest file accepted (`TESSERA_UPLOAD_MAX_BYTES`, default 2 GiB). */
  maxBytes: number;
  /** Largest JSON array file (parsed whole; `TESSERA_UPLOAD_JSON_MAX_BYTES`, default 256 MiB): larger data goes as JSON Lines. */
  jsonMaxBytes: number;
  /** Largest decompressed Parquet row group (`TESSERA_UPLOAD_PARQUET_GROUP_MAX_BYTES`, default 512 MiB): guards against zip bombs. */
  parquetGroupMaxBytes: number;
}

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};

export function loadUploadConfig(env: NodeJS.ProcessEnv): UploadConfig {
  return {
    maxBytes: positive(env.TESSERA_UPLOAD_MAX_BYTES, 2 * 1024 ** 3),
    jsonMaxBytes: positive(env.TESSERA_UPLOAD_JSON_MAX_BYTES, 256 * 1024 ** 2),
    parquetGroupMaxBytes: positive(env.TESSERA_UPLOAD_PARQUET_GROUP_MAX_BYTES, 512 * 1024 ** 2),
  };
}
