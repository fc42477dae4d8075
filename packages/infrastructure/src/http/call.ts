import { RepositoryError, type ErrorCode } from "@tessera/domain";
import { statusOf } from "./http-client.js";

/** Runs one HTTP call and turns any failure into the catalogued RepositoryError (with the HTTP status). */
export async function call<T>(code: ErrorCode, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof RepositoryError) throw error;
    throw new RepositoryError(code, statusOf(error), { cause: error });
  }
}

/** Encodes one path segment. */
export const seg = (value: string): string => encodeURIComponent(value);
