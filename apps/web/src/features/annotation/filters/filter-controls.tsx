import { useEffect, useId, useState, type KeyboardEvent, type SyntheticEvent } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import * as Slider from "@radix-ui/react-slider";
import { matchTerms } from "./filters-panel-view-model";
import { RangeDraft, type RangeBounds } from "./range-draft";

/**
 * Keys pressed inside the filters (search box, popovers, slider, radios) belong to those controls: they must not
 * reach the page's annotation shortcuts (Enter submits, arrows change record, Backspace discards).
 */
export const keepKeysInside = (e: SyntheticEvent) => {
  e.stopPropagation();
};

/** Filter popovers open under their button, aligned on its start. */
export const POPOVER_ALIGN = "start";

/** A checklist shows its search box from this many values on (metadata terms always have one). */
export const TERMS_SEARCH_FROM = 6;

function toggled<T>(values: T[], value: T): T[] {
  return values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
}

/** A searchable list of checkboxes that applies the filter on every click (none checked removes it). */
export function TermsChecklist<T extends string | number>({
  legend,
  values,
  chosen,
  label,
  onChange,
  searchable,
}: {
  legend: string;
  values: T[];
  chosen: T[];
  label: (v: T) => string;
  onChange: (next: T[]) => void;
  searchable?: boolean;
}) {
  const { t } = useTranslation();
  const [query, setQuery] = useState("");
  const shown = matchTerms([...values, ...chosen.filter((v) => !values.includes(v))], label, query);
  return (
    <fieldset className="terms-list">
      <legend className="visually-hidden">{legend}</legend>
      {(searchable ?? values.length >= TERMS_SEARCH_FROM) && (
        <input
          type="search"
          className="terms-list__search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder={t("annotation.filters.searchValues")}
          aria-label={t("annotation.filters.searchValuesOf", { name: legend })}
        />
      )}
      <div className="terms-list__options">
        {shown.map((v) => (
          <label key={String(v)} className="terms-list__option">
            <input type="checkbox" checked={chosen.includes(v)} onChange={() => onChange(toggled(chosen, v))} />
            <span>{label(v)}</span>
          </label>
        ))}
        {shown.length === 0 && (
          <p className="muted terms-list__empty">
            {values.length === 0 ? t("annotation.filters.noTerms") : t("annotation.filters.noMatches")}
          </p>
        )}
      </div>
    </fieldset>
  );
}

/**
 * A range between min and max: a two-thumb slider (Radix) and From / To number inputs clamped to the bounds.
 * The filter applies when the slider is released (or moved with the keyboard) and when a typed bound is done.
 */
export const RangeFilter = observer(function RangeFilter({
  label,
  hint,
  min,
  max,
  integer,
  current,
  onApply,
}: {
  label: string;
  hint?: string;
  min: number;
  max: number;
  integer: boolean;
  current: Partial<RangeBounds> | null;
  onApply: (bounds: RangeBounds) => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [draft] = useState(() => new RangeDraft(min, max, integer, current));
  // a filter cleared or changed elsewhere (its badge) shows here too
  const ge = current?.ge ?? min;
  const le = current?.le ?? max;
  useEffect(() => {
    draft.setValues([ge, le]);
  }, [draft, ge, le]);
  const apply = () => onApply(draft.bounds);
  const commit = (which: "low" | "high") => {
    if (draft.commitText(which)) apply();
  };
  const onEnter = (which: "low" | "high") => (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      commit(which);
    }
  };
  return (
    <div className="range-filter" role="group" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`} className="visually-hidden">
        {label}
      </span>
      {hint && <span className="range-filter__hint muted">{hint}</span>}
      {draft.hasSpan && (
        <Slider.Root
          className="range-slider"
          min={min}
          max={max}
          step={draft.step}
          value={draft.values}
          minStepsBetweenThumbs={0}
          onValueChange={(v) => draft.setValues(v)}
          onValueCommit={(v) => {
            draft.setValues(v);
            apply();
          }}
        >
          <Slider.Track className="range-slider__track">
            <Slider.Range className="range-slider__range" />
          </Slider.Track>
          <Slider.Thumb className="range-slider__thumb" aria-label={t("annotation.filters.minimumOf", { name: label })} />
          <Slider.Thumb className="range-slider__thumb" aria-label={t("annotation.filters.maximumOf", { name: label })} />
        </Slider.Root>
      )}
      <div className="range-filter__inputs">
        <label>
          {t("annotation.filters.from")}
          <input
            type="number"
            inputMode="decimal"
            min={min}
            max={max}
            step={draft.step}
            value={draft.lowText}
            onChange={(e) => draft.setText("low", e.target.value)}
            onBlur={() => commit("low")}
            onKeyDown={onEnter("low")}
          />
        </label>
        <label>
          {t("annotation.filters.to")}
          <input
            type="number"
            inputMode="decimal"
            min={min}
            max={max}
            step={draft.step}
            value={draft.highText}
            onChange={(e) => draft.setText("high", e.target.value)}
            onBlur={() => commit("high")}
            onKeyDown={onEnter("high")}
          />
        </label>
      </div>
    </div>
  );
});

/** A small segmented choice (native radios: arrows move between them), e.g. values or range, or a suggestion's property. */
export function ChoiceGroup<T extends string>({
  legend,
  value,
  options,
  onChange,
}: {
  legend: string;
  value: T;
  options: Array<{ value: T; label: string }>;
  onChange: (value: T) => void;
}) {
  const name = useId();
  return (
    <fieldset className="choice-group">
      <legend className="visually-hidden">{legend}</legend>
      {options.map((o) => (
        <label key={o.value} className={`choice-group__option${o.value === value ? " choice-group__option--on" : ""}`}>
          <input type="radio" className="choice-group__input" name={name} checked={o.value === value} onChange={() => onChange(o.value)} />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}
