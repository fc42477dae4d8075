/** Business constants and limits of spec section 9, in one place. */

/** Bulk annotation sends records in chunks of this size. */
export const BULK_CHUNK_SIZE = 10;
/** With the 'all' option, bulk annotation first fetches up to this many records. */
export const BULK_ALL_FETCH_LIMIT = 1000;

/** Hub import polling: tries, spacing and the number of records needed. */
export const IMPORT_POLL_TRIES = 10;
export const IMPORT_POLL_INTERVAL_MS = 3000;
export const IMPORT_MIN_RECORDS = 10;
/** The Hub import includes the first 10K rows. */
export const HUB_IMPORT_MAX_ROWS = 10_000;

/** Title and description limits. */
export const QUESTION_TITLE_MAX = 200;
export const QUESTION_DESCRIPTION_MAX = 500;
export const FIELD_TITLE_MAX = 500;
export const METADATA_TITLE_MAX = 500;
export const VECTOR_TITLE_MAX = 500;

/** The visible-options control shows only with more options than this. */
export const VISIBLE_OPTIONS_MIN_OPTIONS = 3;

/** Cache durations (seconds). */
export const CACHE_LARGE_SECONDS = 600;
export const CACHE_MEDIUM_SECONDS = 120;
export const CACHE_DEFAULT_SECONDS = 3;

/** Timing of the UI. */
export const LINK_PREFETCH_IDLE_TIMEOUT_MS = 2000;
export const DATA_FETCH_MIN_DELAY_MS = 200;
export const TOAST_BASE_DURATION_MS = 6000;
export const TOAST_EXTRA_MS_PER_CHUNK = 1000;
export const TOAST_CHARACTERS_PER_CHUNK = 120;
export const TOAST_HIDE_DELAY_MS = 150;
export const TOAST_QUEUE_RECHECK_MS = 250;
export const TOAST_OPEN_DELAY_MS = 100;
export const COPY_TOOLTIP_MS = 1000;

/** Toast duration: 6000 ms plus 1000 ms per 120 characters of message, rounded up. */
export function toastDuration(message: string): number {
  return TOAST_BASE_DURATION_MS + Math.ceil(message.length / TOAST_CHARACTERS_PER_CHUNK) * TOAST_EXTRA_MS_PER_CHUNK;
}

/** Colour palette (saturation / lightness, percent). */
export const PALETTE = {
  veryDark: { saturation: 50, lightness: 40 },
  dark: { saturation: 60, lightness: 60 },
  light: { saturation: 80, lightness: 92 },
  veryLight: { saturation: 30, lightness: 96 },
} as const;
export const SPAN_COLOR_SATURATION = 80;
export const SPAN_COLOR_LIGHTNESS = 80;

/** Default rating options 0 to 10. */
export const DEFAULT_RATING_OPTIONS: readonly number[] = Array.from({ length: 11 }, (_, i) => i);

/** Default example options by question type (dataset creation). */
export const DEFAULT_OPTIONS = {
  label_selection: ["positive", "negative", "neutral"],
  multi_label_selection: ["news", "sports", "international", "politics"],
  ranking: ["Option 1", "Option 2"],
  span: ["organisation", "person", "event"],
} as const;
export const DEFAULT_SPAN_ALLOW_OVERLAPPING = true;
export const DEFAULT_SPAN_FIELD = "text";

/** Preview of a multi-label question with more than 3 options: a fake suggestion of the first two options. */
export const PREVIEW_SUGGESTION_SCORES: readonly number[] = [0.5, 0.7];
export const PREVIEW_SUGGESTION_AGENT = "system";

/** Tooltip, badge and avatar sizes. */
export const TOOLTIP_DEFAULT_WIDTH_PX = 100;
export const TOOLTIP_WIDE_WIDTH_PX = 400;
export const TOOLTIP_WIDE_FROM_CHARACTERS = 40;
export const TOOLTIP_MAX_HEIGHT_PX = 360;
export const BADGE_DEFAULT_SIZE_PX = 14;
export const AVATAR_SMALL_PX = 34;
export const AVATAR_MEDIUM_PX = 45;

export function tooltipWidth(content: string): number {
  return content.length >= TOOLTIP_WIDE_FROM_CHARACTERS ? TOOLTIP_WIDE_WIDTH_PX : TOOLTIP_DEFAULT_WIDTH_PX;
}

/** Decimals shown for percentages and scores. */
export const PROGRESS_DECIMALS = 2;
export const RECORD_SCORE_DECIMALS = 1;
export const SUGGESTION_SCORE_DECIMALS = 1;

/** Rounds to a number of decimals (half away from zero for positives). */
export function roundTo(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
