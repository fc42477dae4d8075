import { SPAN_COLOR_LIGHTNESS, SPAN_COLOR_SATURATION } from "../constants.js";

/** A non-negative 32-bit string hash (stable across runs and platforms). */
export function hashText(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) {
    hash = (hash << 5) - hash + text.charCodeAt(i);
    hash |= 0;
  }
  return Math.abs(hash);
}

/** Span option colour when none is given: hue from the label hash modulo 360, saturation and lightness 80. */
export function colorForLabel(label: string): string {
  return `hsl(${hashText(label) % 360}, ${SPAN_COLOR_SATURATION}%, ${SPAN_COLOR_LIGHTNESS}%)`;
}

/**
 * An HSL or HSLA colour as the server stores it (commas optional, as in CSS; nothing around it).
 * The one definition for the server's settings validation and the web app's editors.
 */
export const HSL_COLOR_PATTERN =
  /^hsla?\(\s*\d{1,3}(\.\d+)?(deg)?\s*,?\s*\d{1,3}(\.\d+)?%\s*,?\s*\d{1,3}(\.\d+)?%\s*(,\s*(0|1|0?\.\d+)\s*)?\)$/i;

/** Colour values must be HSL ('The value color must be HSL for now.'). */
export function isHslColor(value: string): boolean {
  return HSL_COLOR_PATTERN.test(value);
}

/** Returns the colour with a different saturation and lightness, e.g. for a palette shade. */
export function withSaturationLightness(color: string, saturation: number, lightness: number): string {
  const match = /^hsla?\(\s*(\d+(?:\.\d+)?)/i.exec(color.trim());
  if (!match) throw new Error("The value color must be HSL for now.");
  return `hsl(${match[1]}, ${saturation}%, ${lightness}%)`;
}
