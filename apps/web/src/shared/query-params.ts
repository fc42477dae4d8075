import { useCallback, useMemo } from "react";
import { useLocation, useNavigate } from "react-router";

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];
export type QueryParams = Record<string, string | string[]>;

const decode = (value: string) => {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
};

/** Reads a search string ('?a=1&b=x%20y') into decoded values; repeated keys become arrays. */
export function parseQuery(search: string): QueryParams {
  const result: QueryParams = {};
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!part) continue;
    const [rawKey = "", ...rest] = part.split("=");
    const key = decode(rawKey);
    const value = decode(rest.join("="));
    const existing = result[key];
    result[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return result;
}

const isEmpty = (value: QueryValue): boolean =>
  value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0);

/** Writes values URL-encoded (encodeURIComponent: spaces as %20); empty values are dropped. */
export function stringifyQuery(params: Record<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (isEmpty(value)) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) if (!isEmpty(v as QueryValue)) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

/**
 * Spec section 2: merges updates into the current query. Setting pushes a history entry when a
 * query already exists, otherwise it replaces the current entry.
 */
export function nextQuery(currentSearch: string, updates: Record<string, QueryValue>): { search: string; replace: boolean } {
  const merged: Record<string, QueryValue> = { ...parseQuery(currentSearch), ...updates };
  return { search: stringifyQuery(merged), replace: currentSearch.replace(/^\?/, "") === "" };
}

/** Hook for pages: `const [query, setQuery] = useQueryParams(); setQuery({ page: 2, q: "" })`. */
export function useQueryParams(): [QueryParams, (updates: Record<string, QueryValue>) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const query = useMemo(() => parseQuery(location.search), [location.search]);
  const setQuery = useCallback(
    (updates: Record<string, QueryValue>) => {
      const { search, replace } = nextQuery(location.search, updates);
      if (search === location.search) return;
      void navigate({ pathname: location.pathname, search, hash: location.hash }, { replace });
    },
    [location.search, location.pathname, location.hash, navigate],
  );
  return [query, setQuery];
}
