/** Right-to-left scripts: Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and their presentation forms. */
const RTL_CHAR = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const LETTER = /\p{L}/u;

export type TextDirection = "ltr" | "rtl";

/** Spec section 1: the direction is right-to-left when right-to-left characters outnumber left-to-right ones. */
export function textDirection(text: string): TextDirection {
  let rtl = 0;
  let ltr = 0;
  for (const char of text) {
    if (RTL_CHAR.test(char)) rtl++;
    else if (LETTER.test(char)) ltr++;
  }
  return rtl > ltr ? "rtl" : "ltr";
}

export const isRightToLeft = (text: string): boolean => textDirection(text) === "rtl";
