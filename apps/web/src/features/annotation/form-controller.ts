import { action, makeObservable, observable } from "mobx";
import type { AnswerValue, DatasetRecord, Question } from "@tessera/domain";

/**
 * Makes the plain domain records reactive: every answer change goes through `set`, which bumps
 * `version`; components read `track()` so MobX re-renders them. `onChange` lets the page view
 * model schedule the draft autosave.
 */
export class FormController {
  version = 0;
  /** The question that receives number keys (name), per form. */
  activeQuestion: string | null = null;
  /** Span questions: the entity picked in the form, by question name. */
  entities = new Map<string, string>();

  constructor(private readonly onChange: (record: DatasetRecord, question: Question) => void = () => {}) {
    makeObservable(this, {
      version: observable,
      activeQuestion: observable,
      entities: observable,
      set: action,
      touch: action,
      activate: action,
      pickEntity: action,
    });
  }

  track(): number {
    return this.version;
  }

  set(record: DatasetRecord, question: Question, value: AnswerValue | null): void {
    question.answer.set(value);
    this.version++;
    this.onChange(record, question);
  }

  /** After a mutation done elsewhere (save, reset, clear, navigation). */
  touch(): void {
    this.version++;
  }

  activate(name: string | null): void {
    this.activeQuestion = name;
  }

  pickEntity(question: string, label: string | null): void {
    if (label === null) this.entities.delete(question);
    else this.entities.set(question, label);
  }

  entityFor(question: Question): string | null {
    const picked = this.entities.get(question.name);
    if (picked !== undefined) return picked;
    const first = question.options[0];
    return first ? String(first.value) : null;
  }
}
