import { lazy, type ComponentType, type LazyExoticComponent } from "react";
import { matchPath } from "react-router";

export const CHUNK_RELOAD_KEY = "chunkReloadAt";
export const CHUNK_RELOAD_INTERVAL_MS = 60_000;

export interface ChunkReloadDeps {
  get(): number | undefined;
  set(at: number): void;
  now(): number;
  reload(): void;
}

/** Spec section 8: a failed code-chunk load reloads the page, at most once a minute. */
export function reloadAfterChunkError(deps: ChunkReloadDeps): boolean {
  const last = deps.get();
  const now = deps.now();
  if (last !== undefined && now - last < CHUNK_RELOAD_INTERVAL_MS) return false;
  deps.set(now);
  deps.reload();
  return true;
}

export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dynamically imported module|Importing a module script failed|ChunkLoadError|Unable to preload CSS|Loading chunk \S+ failed/i.test(
    message,
  );
}

let chunkDeps: ChunkReloadDeps | null = null;
/** main.tsx wires the product storage and window.location here. */
export function configureChunkReload(deps: ChunkReloadDeps): void {
  chunkDeps = deps;
}

export type LazyPage<P extends object = object> = LazyExoticComponent<ComponentType<P>> & { preload(): Promise<unknown> };

/**
 * A page loaded as its own code chunk (React.lazy) that can be prefetched. When the chunk fails to
 * load (typically after a deploy) the page reloads once; a second failure within a minute shows the error page.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let pending: Promise<ComponentType<P>> | null = null;
  const preload = () => {
    pending ??= load().catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
  const component = lazy(async () => {
    try {
      return { default: await preload() };
    } catch (error) {
      if (isChunkLoadError(error) && chunkDeps && reloadAfterChunkError(chunkDeps)) return new Promise<never>(() => {});
      throw error;
    }
  }) as LazyPage<P>;
  component.preload = () => preload().catch(() => undefined);
  return component;
}

const prefetchers: { pattern: string; preload: () => Promise<unknown> }[] = [];

/** The router registers each lazy route's pattern so that visible links can prefetch its chunk. */
export function registerPrefetch(pattern: string, preload: () => Promise<unknown>): void {
  if (!prefetchers.some((p) => p.pattern === pattern)) prefetchers.push({ pattern, preload });
}

export function prefetchPath(path: string): boolean {
  const pathname = path.split(/[?#]/)[0] ?? path;
  const match = prefetchers.find((p) => matchPath(p.pattern, pathname));
  if (!match) return false;
  void match.preload();
  return true;
}

interface NetworkNavigator {
  onLine?: boolean;
  connection?: { saveData?: boolean; effectiveType?: string };
}

/** Spec section 1: no prefetch when offline, on a 2g connection or in data-saver mode. */
export function canPrefetch(
  nav: NetworkNavigator | undefined = typeof navigator === "undefined" ? undefined : (navigator as NetworkNavigator),
): boolean {
  if (!nav) return false;
  if (nav.onLine === false) return false;
  if (nav.connection?.saveData) return false;
  if (nav.connection?.effectiveType?.includes("2g")) return false;
  return true;
}
