/**
 * Free text of a search as the full-text engines may see it (both adapters split it here, issue 28):
 * control characters (NUL included: FTS5 ends a string there, PostgreSQL refuses it in text) and
 * unpaired surrogates become spaces, words are split on whitespace, repeated words are dropped (every
 * word is required, so a repeat changes nothing) and at most MAX_SEARCH_WORDS are kept. Quotes,
 * operators and backslashes stay in the words: each adapter quotes them as literal text.
 */
export const MAX_SEARCH_WORDS = 64;
export const MAX_SEARCH_TEXT_LENGTH = 10_000;

const UNSEARCHABLE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const distinctWords = (q: string): string[] => [
  ...new Set(
    q
      .replace(UNSEARCHABLE, " ")
      .split(/\s+/)
      .filter((w) => w.length > 0),
  ),
];

export function searchWords(q: string): string[] {
  return distinctWords(q).slice(0, MAX_SEARCH_WORDS);
}

/** The route's check: more distinct words than the engines are given is a client error (422), not a silent cut. */
export const countSearchWords = (q: string): number => distinctWords(q).length;
