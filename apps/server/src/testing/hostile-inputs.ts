/**
 * Hostile inputs shared by the search port suite (both adapters), the HTTP input tests and the fuzz
 * suite (issue 28: a NUL byte in a text search answered 500; names with control characters).
 */
/** Texts a search box may receive: control characters, quotes, FTS and tsquery operators, backslashes, 10,000 characters. */
export const HOSTILE_SEARCH_TEXTS: readonly string[] = [
  "ab\u0000c", "\u0000", ...Array.from({ length: 32 }, (_, i) => `a${String.fromCharCode(i)}b`), "x\u007fy", "\u0085\u009f",
  "\"", "\"\"", "'", "''", "it's", "\"quick", "quick\"", "\\", "a\\b", "a\\*", "'a\\'*", "\\'",
  "AND", "OR", "NOT", "quick AND", "quick OR fox", "NOT quick", "NEAR(quick fox)", "quick NEAR/2 fox", "^quick", "text:quick", "-quick", "+quick",
  "(", ")", "(quick", "{text}: quick", "*", "**", "qu*", "*quick", "a:*", "!", "&", "|", "<->", "!quick & fox | (a <-> b)", ":", ":*",
  "%", "_", "%_%", ";", "-- comment", "1; DROP TABLE records; --", "\ud800", "\udc00x", "😀", "é", "\u200b", "\ufeff",
  "q".repeat(10_000), "quick ".repeat(1_666) + "fox", Array.from({ length: 5_000 }, (_, i) => `w${i}`).join(" ").slice(0, 10_000),
];


/** Names no workspace, dataset, field, question, metadata property or vector settings may take. */
export const HOSTILE_NAMES: readonly string[] = [" lead", "trail ", "a/b", "a\u0007b", "a\u0000b", "line\nbreak", "\t", "-dash", "_under", "Upper Case", "x".repeat(201), "<img src=x onerror=alert(1)>"];
