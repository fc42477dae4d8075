import { action, computed, makeObservable, observable, observableRef } from "mobx";
import {
  responseFilterKinds,
  suggestionFilterProperties,
  type MetadataProperty,
  type OptionValue,
  type Question,
  type SuggestionFilter,
} from "@tessera/domain";
import type { AnnotationViewModel } from "../annotation-view-model";

export type FilterCategory = "metadata" | "responses" | "suggestions";
export const FILTER_CATEGORIES: FilterCategory[] = ["metadata", "responses", "suggestions"];
export type SuggestionProperty = SuggestionFilter["property"];

/** What one editor of the panel filters on: a metadata property, or a question's responses or suggestions. */
export type FilterSubject =
  { category: "metadata"; name: string } | { category: "responses"; question: string } | { category: "suggestions"; question: string };

/** One entry of a category's list (a property or a question), with whether it filters now. */
export interface SubjectEntry {
  subject: FilterSubject;
  title: string;
  active: boolean;
}

/**
 * An active filter as its badge shows it: the category, the property or question title, the suggestion
 * property (value, score, agent), the chosen values (option texts) or the range; `clear` removes it.
 */
export interface ActiveFilter {
  key: string;
  subject: FilterSubject;
  title: string;
  property: SuggestionProperty | null;
  values: string[] | null;
  range: { ge: number | null; le: number | null } | null;
  clear: () => void;
}

/** The property/question list of a category shows a search box from this many entries on. */
export const SUBJECT_SEARCH_FROM = 6;

const subjectKey = (s: FilterSubject) => `${s.category}:${"name" in s ? s.name : s.question}`;
const sameSubject = (a: FilterSubject | null, b: FilterSubject) => a !== null && subjectKey(a) === subjectKey(b);

/** Case-insensitive substring match on each value's label (an empty query keeps them all, in order). */
export function matchTerms<T>(values: T[], label: (v: T) => string, query: string): T[] {
  const q = query.trim().toLowerCase();
  return q ? values.filter((v) => label(v).toLowerCase().includes(q)) : values;
}

/** The text of an option value: the question's option text when it has one. */
export function optionText(question: Question | undefined, value: OptionValue): string {
  const option = question?.options.find((o) => o.value === value);
  return option ? (option.text ?? String(option.value)) : String(value);
}

/**
 * The filters panel of the annotation screen: whether it is expanded, which category popover is open and
 * which property or question it edits, the lists it offers (only the metadata properties the API gave this
 * user, the questions with response filters) and the active filters as badges. Filters themselves live in
 * the annotation view model's criteria (and so in the URL).
 */
export class FiltersPanelViewModel {
  expanded: boolean;
  openCategory: FilterCategory | null = null;
  editing: FilterSubject | null = null;
  subjectQuery = "";
  metadata: MetadataProperty[] = [];
  private schemaQuestions: Question[] = [];

  constructor(private readonly annotation: AnnotationViewModel) {
    makeObservable<FiltersPanelViewModel, "schemaQuestions">(this, {
      expanded: observable,
      openCategory: observable,
      editing: observableRef,
      subjectQuery: observable,
      metadata: observableRef,
      schemaQuestions: observableRef,
      questions: computed,
      activeFilters: computed,
      activeCount: computed,
      categories: computed,
      setSchema: action,
      toggleExpanded: action,
      openPopover: action,
      closePopover: action,
      choose: action,
      back: action,
      setSubjectQuery: action,
      editFilter: action,
      reset: action,
    });
    this.expanded = this.activeCount > 0;
  }

  /** The dataset's metadata properties as the API returned them to this user, and its questions. */
  setSchema(metadata: MetadataProperty[], questions: Question[]): void {
    this.metadata = metadata;
    this.schemaQuestions = questions;
  }

  /** The dataset's questions (until the settings load, those of the record on screen). */
  get questions(): Question[] {
    if (this.schemaQuestions.length) return this.schemaQuestions;
    void this.annotation.revision;
    return this.annotation.current?.questions ?? [];
  }

  question(name: string): Question | undefined {
    return this.questions.find((q) => q.name === name);
  }

  private get criteria() {
    void this.annotation.revision;
    return this.annotation.criteria;
  }

  /** Categories that have something to filter on. */
  get categories(): FilterCategory[] {
    return FILTER_CATEGORIES.filter((c) => this.subjects(c).length > 0);
  }

  /** The properties (metadata) or questions a category offers, with their active state. */
  subjects(category: FilterCategory): SubjectEntry[] {
    const c = this.criteria;
    switch (category) {
      case "metadata":
        return this.metadata.map((m) => ({
          subject: { category, name: m.name },
          title: m.title,
          active: c.metadata.some((f) => f.name === m.name),
        }));
      case "responses":
        return this.questions
          .filter((q) => responseFilterKinds(q.type).length > 0)
          .map((q) => ({
            subject: { category, question: q.name },
            title: q.title,
            active: c.responses.some((f) => f.question === q.name),
          }));
      case "suggestions":
        return this.questions
          .filter((q) => suggestionFilterProperties(q.type).length > 0)
          .map((q) => ({
            subject: { category, question: q.name },
            title: q.title,
            active: c.suggestions.some((f) => f.question === q.name),
          }));
    }
  }

  /** The subjects of the open category that match the search box. */
  get shownSubjects(): SubjectEntry[] {
    return this.openCategory ? matchTerms(this.subjects(this.openCategory), (e) => e.title, this.subjectQuery) : [];
  }

  get hasSubjectSearch(): boolean {
    return this.openCategory !== null && this.subjects(this.openCategory).length >= SUBJECT_SEARCH_FROM;
  }

  get activeFilters(): ActiveFilter[] {
    const c = this.criteria;
    const vm = this.annotation;
    const out: ActiveFilter[] = [];
    for (const m of c.metadata) {
      out.push({
        key: `m-${m.name}`,
        subject: { category: "metadata", name: m.name },
        title: this.metadata.find((p) => p.name === m.name)?.title ?? m.name,
        property: null,
        values: m.kind === "terms" ? m.values.map(String) : null,
        range: m.kind === "range" ? { ge: m.ge ?? null, le: m.le ?? null } : null,
        clear: () =>
          vm.setCriteria((cr) => {
            cr.metadata = cr.metadata.filter((x) => x.name !== m.name);
          }),
      });
    }
    for (const r of c.responses) {
      const q = this.question(r.question);
      out.push({
        key: `r-${r.question}`,
        subject: { category: "responses", question: r.question },
        title: q?.title ?? r.question,
        property: null,
        values: r.kind === "terms" ? r.values.map((v) => optionText(q, v)) : null,
        range: r.kind === "range" ? { ge: r.ge ?? null, le: r.le ?? null } : null,
        clear: () => vm.setResponseFilter(r.question, null),
      });
    }
    for (const s of c.suggestions) {
      const q = this.question(s.question);
      out.push({
        key: `s-${s.question}-${s.property}`,
        subject: { category: "suggestions", question: s.question },
        title: q?.title ?? s.question,
        property: s.property,
        values: s.kind === "terms" ? s.values.map((v) => (s.property === "value" ? optionText(q, v) : String(v))) : null,
        range: s.kind === "range" ? { ge: s.ge ?? null, le: s.le ?? null } : null,
        clear: () => vm.setSuggestionFilter(s.question, s.property, null),
      });
    }
    return out;
  }

  get activeCount(): number {
    return this.activeFilters.length;
  }

  /** Whether Reset is offered: any filter, search, similarity or sort. */
  get canReset(): boolean {
    const c = this.criteria;
    return c.isFiltered || c.isSorted;
  }

  toggleExpanded(): void {
    this.expanded = !this.expanded;
    if (!this.expanded) this.closePopover();
  }

  /** Opens a category's popover on its list (or straight on the editor when it has one subject only). */
  openPopover(category: FilterCategory): void {
    this.openCategory = category;
    this.subjectQuery = "";
    const subjects = this.subjects(category);
    this.editing = subjects.length === 1 ? subjects[0]!.subject : null;
  }

  closePopover(): void {
    this.openCategory = null;
    this.editing = null;
    this.subjectQuery = "";
  }
  choose(subject: FilterSubject): void {
    this.editing = subject;
  }
  back(): void {
    this.editing = null;
  }
  setSubjectQuery(query: string): void {
    this.subjectQuery = query;
  }
  isEditing(subject: FilterSubject): boolean {
    return sameSubject(this.editing, subject);
  }

  /** A badge was clicked: opens its category on that filter's editor. */
  editFilter(filter: ActiveFilter): void {
    this.expanded = true;
    this.openCategory = filter.subject.category;
    this.subjectQuery = "";
    this.editing = filter.subject;
  }

  /** Reset: no search, filter, similarity or sort (status and view stay). */
  reset(): void {
    this.closePopover();
    this.annotation.setCriteria((cr) => {
      cr.searchText = "";
      cr.searchField = null;
      cr.metadata = [];
      cr.responses = [];
      cr.suggestions = [];
      cr.sort = [];
      cr.similarity = null;
    });
  }
}
