/** Limits of file uploads (docs/api.md "Record uploads"). */
export interface UploadConfig {
  /** Largest file accepted (`TESSERA_UPLOAD_MAX_BYTES`, default 2 GiB). */
  maxBytes: number;
  /** Largest decompressed Parquet row group (`TESSERA_UPLOAD_PARQUET_GROUP_MAX_BYTES`, default 512 MiB): guards against zip bombs. */
  parquetGroupMaxBytes: number;
  /**
   * How long an upload that was never imported (or an import that stopped and did not resume) is
   * kept unchanged before its bytes and state are removed (`TESSERA_UPLOAD_EXPIRY_HOURS`, default 24).
   */
  expiryMs: number;
}

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};

export function loadUploadConfig(env: NodeJS.ProcessEnv): UploadConfig {
  return {
    maxBytes: positive(env.TESSERA_UPLOAD_MAX_BYTES, 2 * 1024 ** 3),
    parquetGroupMaxBytes: positive(env.TESSERA_UPLOAD_PARQUET_GROUP_MAX_BYTES, 512 * 1024 ** 2),
    expiryMs: Math.round((Number(env.TESSERA_UPLOAD_EXPIRY_HOURS) > 0 ? Number(env.TESSERA_UPLOAD_EXPIRY_HOURS) : 24) * 3_600_000),
  };
}
