import type { ReactElement } from "react";
import { render } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { DatasetRecord, type FieldProps, type QuestionProps, type RecordProps } from "@tessera/domain";
import { createI18n } from "../../i18n/i18n";
import { FormController } from "./form-controller";

/** Renders a component of the annotation screen with the English texts (component tests in jsdom). */
export async function renderWithI18n(ui: ReactElement) {
  const i18n = await createI18n("en");
  return render(<I18nextProvider i18n={i18n}>{ui}</I18nextProvider>);
}

/** A question of the given settings (id `q-<name>`). */
export function questionProps(name: string, settings: QuestionProps["settings"], required = true): QuestionProps {
  return { id: `q-${name}`, name, datasetId: "d", title: name.toUpperCase(), description: null, required, settings };
}

/** One initialized record with these questions and fields, and a form controller that logs changes. */
export function recordWith(questions: QuestionProps[], fields: FieldProps[] = [], extra: Partial<RecordProps> = {}) {
  const values: { [name: string]: unknown } = {};
  for (const f of fields) values[f.name] = "";
  const record = new DatasetRecord(
    {
      id: "r1",
      datasetId: "d",
      fields: values,
      metadata: null,
      response: null,
      suggestions: [],
      insertedAt: "",
      updatedAt: "",
      queryScore: null,
      taskStatus: "pending",
      ...extra,
    },
    questions,
    fields,
    1,
  );
  record.initialize();
  const changes: string[] = [];
  const form = new FormController((_r, q) => changes.push(q.name));
  return { record, form, changes };
}

export const opts = (...values: Array<string | number>) => values.map((value) => ({ value, text: String(value) }));
