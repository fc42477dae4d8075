import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConfigData, DatasetData, Feature, Row, SplitData } from "./catalog.js";
import { computeStatistics } from "./statistics.js";
import { parseColor, solidPng } from "./png.js";

/** Rows per page of `/rows` (MAX_NUM_ROWS_PER_PAGE of the real viewer). */
export const MAX_ROWS_PER_PAGE = 100;

export interface ViewerOptions {
  catalog: Map<string, DatasetData>;
  /** Tokens accepted as `Authorization: Bearer <token>` for gated datasets. */
  tokens: ReadonlySet<string>;
  /** Public base URL used in image `src` values; defaults to the request's own origin. */
  publicUrl?: string;
}

const AUTH_MESSAGE =
  "The dataset does not exist, or is not accessible without authentication (private or gated). Please check the spelling of the dataset name or retry with authentication.";

class ViewerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | undefined>;

/**
 * The dataset viewer endpoints of hub.md section 1 (`/is-valid`, `/splits`, `/info`, `/first-rows`,
 * `/rows`, `/statistics`, `/size`) and the `/assets/...` images their rows point to.
 */
export function viewerRoutes(app: FastifyInstance, options: ViewerOptions): void {
  const notReadyServed = new Map<string, number>();

  const token = (request: FastifyRequest): string | null => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
    return match ? match[1]!.trim() : null;
  };

  /** Unknown or inaccessible dataset: 401 without a token, 404 with one (same message). */
  const dataset = (request: FastifyRequest, query: Query): DatasetData => {
    const id = query.dataset;
    if (!id) throw new ViewerError(422, "MissingRequiredParameter", "Parameter 'dataset' is required");
    const found = options.catalog.get(id);
    const bearer = token(request);
    const accessible = found && (!found.descriptor.gated || (bearer !== null && options.tokens.has(bearer)));
    if (!accessible) {
      if (bearer === null) throw new ViewerError(401, "ExternalUnauthenticatedError", AUTH_MESSAGE);
      throw new ViewerError(404, "ExternalAuthenticatedError", AUTH_MESSAGE);
    }
    return found;
  };
  const config = (data: DatasetData, name: string): ConfigData => {
    const found = data.configs.get(name);
    if (!found) throw new ViewerError(404, "ResponseNotFound", "Not found.");
    return found;
  };
  const split = (data: ConfigData, name: string): SplitData => {
    const found = data.splits.get(name);
    if (!found) throw new ViewerError(404, "ResponseNotFound", "Not found.");
    return found;
  };
  const requireAll = (query: Query): { dataset: string; config: string; split: string } => {
    if (!query.dataset || !query.config || !query.split) {
      throw new ViewerError(422, "MissingRequiredParameter", "Parameters 'dataset', 'config' and 'split' are required");
    }
    return { dataset: query.dataset, config: query.config, split: query.split };
  };
  /** The split a `dataset`/`config`/`split` query names (422 when one is missing, 404 when one is unknown). */
  const splitOf = (request: FastifyRequest, query: Query): { data: DatasetData; cfg: ConfigData; sp: SplitData } => {
    const names = requireAll(query);
    const data = dataset(request, query);
    const cfg = config(data, names.config);
    return { data, cfg, sp: split(cfg, names.split) };
  };
  const integer = (query: Query, name: string, fallback: number): number => {
    const raw = query[name];
    if (raw === undefined || raw === "") return fallback;
    if (!/^-?\d+$/.test(raw)) throw new ViewerError(422, "InvalidParameter", `Parameter '${name}' must be integer`);
    const value = Number(raw);
    if (value < 0) throw new ViewerError(422, "InvalidParameter", `Parameter '${name}' must be positive`);
    return value;
  };

  const baseUrl = (request: FastifyRequest) => options.publicUrl ?? `${request.protocol}://${request.host}`;
  const featureItems = (features: Record<string, Feature>) =>
    Object.entries(features).map(([name, type], index) => ({ feature_idx: index, name, type }));
  /** Image cells become `{src, height, width}` with a signed-looking URL on the fake hub itself. */
  const rowItem = (request: FastifyRequest, data: DatasetData, cfg: ConfigData, sp: SplitData, row: Row, rowIdx: number) => {
    const out: Row = {};
    for (const [name, feature] of Object.entries(cfg.features)) {
      const cell = row[name] ?? null;
      if (cell !== null && !Array.isArray(feature) && (feature as { _type?: unknown })._type === "Image") {
        const image = cell as { width?: number; height?: number };
        const path = [...data.id.split("/"), "--", data.revision, "--", cfg.name, sp.name, String(rowIdx), name, "image.png"]
          .map(encodeURIComponent)
          .join("/");
        out[name] = {
          src: `${baseUrl(request)}/assets/${path}?Expires=4102444800&Signature=fake&Key-Pair-Id=FAKE`,
          height: image.height ?? 8,
          width: image.width ?? 8,
        };
      } else {
        out[name] = cell;
      }
    }
    return { row_idx: rowIdx, row: out, truncated_cells: [] as string[] };
  };
  const datasetInfo = (data: DatasetData, cfg: ConfigData) => {
    const d = data.descriptor;
    const splits: Record<string, unknown> = {};
    let size = 0;
    for (const sp of cfg.splits.values()) {
      const bytes = Buffer.byteLength(JSON.stringify(sp.rows));
      size += bytes;
      splits[sp.name] = { name: sp.name, num_bytes: bytes, num_examples: sp.rows.length, dataset_name: data.id.split("/").pop() };
    }
    return {
      description: d.description ?? "",
      citation: d.citation ?? "",
      homepage: d.homepage ?? "",
      license: d.license ?? "",
      features: cfg.features,
      builder_name: "parquet",
      dataset_name: data.id.split("/").pop(),
      config_name: cfg.name,
      version: { version_str: "0.0.0", major: 0, minor: 0, patch: 0 },
      splits,
      download_size: size,
      dataset_size: size,
    };
  };

  const send = (reply: FastifyReply, data: DatasetData, body: unknown) =>
    reply.header("Cache-Control", "max-age=120").header("X-Revision", data.revision).send(body);

  app.get("/is-valid", async (request, reply) => {
    const query = request.query as Query;
    const data = dataset(request, query);
    if (query.config) {
      const cfg = config(data, query.config);
      if (query.split) split(cfg, query.split);
    }
    return send(reply, data, { preview: true, viewer: true, search: true, filter: true, statistics: true });
  });

  app.get("/splits", async (request, reply) => {
    const query = request.query as Query;
    const data = dataset(request, query);
    const configs = query.config ? [config(data, query.config)] : [...data.configs.values()];
    const splits = configs.flatMap((cfg) => [...cfg.splits.keys()].map((name) => ({ dataset: data.id, config: cfg.name, split: name })));
    return send(reply, data, { splits, pending: [], failed: [] });
  });

  app.get("/info", async (request, reply) => {
    const query = request.query as Query;
    const data = dataset(request, query);
    if (query.config) return send(reply, data, { dataset_info: datasetInfo(data, config(data, query.config)), partial: false });
    const all = Object.fromEntries([...data.configs.values()].map((cfg) => [cfg.name, datasetInfo(data, cfg)]));
    return send(reply, data, { dataset_info: all, pending: [], failed: [], partial: false });
  });

  app.get("/size", async (request, reply) => {
    const query = request.query as Query;
    const data = dataset(request, query);
    const configs = query.config ? [config(data, query.config)] : [...data.configs.values()];
    const splitSizes = configs.flatMap((cfg) =>
      [...cfg.splits.values()].map((sp) => {
        const bytes = Buffer.byteLength(JSON.stringify(sp.rows));
        return {
          dataset: data.id,
          config: cfg.name,
          split: sp.name,
          num_bytes_parquet_files: bytes,
          num_bytes_memory: bytes,
          num_rows: sp.rows.length,
          num_columns: Object.keys(cfg.features).length,
          estimated_num_rows: null,
        };
      }),
    );
    const configSizes = configs.map((cfg) => {
      const mine = splitSizes.filter((s) => s.config === cfg.name);
      const sum = (key: "num_bytes_parquet_files" | "num_bytes_memory" | "num_rows") => mine.reduce((a, s) => a + s[key], 0);
      return {
        dataset: data.id,
        config: cfg.name,
        num_bytes_parquet_files: sum("num_bytes_parquet_files"),
        num_bytes_memory: sum("num_bytes_memory"),
        num_rows: sum("num_rows"),
        num_columns: Object.keys(cfg.features).length,
        estimated_num_rows: null,
      };
    });
    if (query.config) return send(reply, data, { size: { config: configSizes[0], splits: splitSizes }, partial: false });
    const sum = (key: "num_bytes_parquet_files" | "num_bytes_memory" | "num_rows") => configSizes.reduce((a, s) => a + s[key], 0);
    return send(reply, data, {
      size: {
        dataset: {
          dataset: data.id,
          num_bytes_parquet_files: sum("num_bytes_parquet_files"),
          num_bytes_memory: sum("num_bytes_memory"),
          num_rows: sum("num_rows"),
          estimated_num_rows: null,
        },
        configs: configSizes,
        splits: splitSizes,
      },
      pending: [],
      failed: [],
      partial: false,
    });
  });

  app.get("/first-rows", async (request, reply) => {
    const { data, cfg, sp } = splitOf(request, request.query as Query);
    const rows = sp.rows.slice(0, MAX_ROWS_PER_PAGE).map((row, i) => rowItem(request, data, cfg, sp, row, i));
    return send(reply, data, {
      dataset: data.id,
      config: cfg.name,
      split: sp.name,
      features: featureItems(cfg.features),
      rows,
      truncated: false,
    });
  });

  app.get("/rows", async (request, reply) => {
    const query = request.query as Query;
    requireAll(query);
    const offset = integer(query, "offset", 0);
    const length = integer(query, "length", MAX_ROWS_PER_PAGE);
    if (length > MAX_ROWS_PER_PAGE)
      throw new ViewerError(422, "InvalidParameter", `Parameter 'length' must not be greater than ${MAX_ROWS_PER_PAGE}`);
    const { data, cfg, sp } = splitOf(request, query);
    const failures = data.descriptor.failures ?? {};
    const served = notReadyServed.get(data.id) ?? 0;
    if (failures.notReadyTimes && served < failures.notReadyTimes) {
      notReadyServed.set(data.id, served + 1);
      throw new ViewerError(
        500,
        "ResponseNotReady",
        "The server is busier than usual and the response is not ready yet. Please retry later.",
      );
    }
    if (failures.rowsFromOffset !== undefined && offset >= failures.rowsFromOffset) {
      throw new ViewerError(500, "UnexpectedError", "Unexpected error.");
    }
    const rows = sp.rows.slice(offset, offset + length).map((row, i) => rowItem(request, data, cfg, sp, row, offset + i));
    return send(reply, data, {
      features: featureItems(cfg.features),
      rows,
      num_rows_total: sp.rows.length,
      num_rows_per_page: MAX_ROWS_PER_PAGE,
      partial: false,
    });
  });

  app.get("/statistics", async (request, reply) => {
    const { data, cfg, sp } = splitOf(request, request.query as Query);
    return send(reply, data, { num_examples: sp.rows.length, statistics: computeStatistics(cfg.features, sp.rows), partial: false });
  });

  // /assets/<owner>/<name>/--/<revision>/--/<config>/<split>/<row>/<column>/image.png (dataset ids may have no owner).
  app.get("/assets/*", async (request, reply) => {
    const rest = (request.params as { "*": string })["*"].split("/").map(decodeURIComponent);
    const first = rest.indexOf("--");
    const [revision, separator, configName, splitName, rowIdx, column] = rest.slice(first + 1);
    const data = first > 0 ? options.catalog.get(rest.slice(0, first).join("/")) : undefined;
    const cfg = data && separator === "--" && revision === data.revision ? data.configs.get(configName ?? "") : undefined;
    const row = cfg?.splits.get(splitName ?? "")?.rows[Number(rowIdx)];
    const cell = row && column ? (row[column] as { width?: number; height?: number; color?: string } | null | undefined) : undefined;
    if (!cell) throw new ViewerError(404, "ResponseNotFound", "Not found.");
    const png = solidPng(cell.width ?? 8, cell.height ?? 8, parseColor(cell.color));
    return reply.header("Cache-Control", "max-age=3600").type("image/png").send(png);
  });

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ViewerError) {
      return reply
        .status(error.status)
        .header("Cache-Control", "no-store")
        .header("X-Error-Code", error.code)
        .send({ error: error.message });
    }
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    return reply
      .status(status)
      .header("Cache-Control", "no-store")
      .header("X-Error-Code", "UnexpectedError")
      .send({ error: status >= 500 ? "Unexpected error." : (error as Error).message });
  });
}
