import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { parse, uuidParam } from "./errors.js";

/**
 * Reads UUID path parameters; a malformed id is the contract's legacy 422 ValidationError
 * (`loc: ["path", "<name>"]`), never a 500.
 */
export function pathIds<K extends string>(request: FastifyRequest, ...names: K[]): Record<K, string> {
  const shape = Object.fromEntries(names.map((n) => [n, uuidParam])) as Record<K, typeof uuidParam>;
  return parse(z.object(shape), request.params, "path") as Record<K, string>;
}
