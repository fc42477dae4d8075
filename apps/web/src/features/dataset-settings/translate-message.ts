import type { TFunction } from "i18next";
import type { Message } from "@tessera/domain";

/**
 * Translates a domain message: its key under datasetSettings (validations.*), then the key itself
 * (datasetCreation.* keys live at the root), then the English text the domain carries.
 */
export function translateMessage(t: TFunction, message: Message): string {
  return t([`datasetSettings.${message.key}`, message.key], { ...(message.params ?? {}), defaultValue: message.text });
}
