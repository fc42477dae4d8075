import { useMemo, useRef, type KeyboardEvent, type ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { DndContext, PointerSensor, useDraggable, useDroppable, useSensor, useSensors, type DragEndEvent } from "@dnd-kit/core";
import type { DatasetRecord, Question, RankingItem } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { DigitBuffer } from "./digit-buffer";
import { rankOption, rankingSlots } from "./ranking";
import { QuestionShell, SuggestionMark } from "./QuestionShell";

function Zone({ id, className, label, children }: { id: string; className: string; label: string; children: ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id });
  return (
    <div ref={setNodeRef} className={`${className}${isOver ? " rank-zone--over" : ""}`} data-rank-zone={id} aria-label={label} role="list">
      {children}
    </div>
  );
}

function Card({
  item,
  text,
  question,
  onKeyDown,
  disabled,
}: {
  item: RankingItem;
  text: string;
  question: Question;
  onKeyDown: (e: KeyboardEvent<HTMLButtonElement>, item: RankingItem) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: item.value, disabled });
  const s = question.suggestion;
  const suggestedRank = s?.rankFor(item.value) ?? null;
  const style = transform ? { transform: `translate3d(${transform.x}px, ${transform.y}px, 0)`, zIndex: 10 } : undefined;
  return (
    <button
      ref={setNodeRef}
      type="button"
      className={`rank-card${isDragging ? " rank-card--dragging" : ""}`}
      data-rank-card={item.value}
      style={style}
      {...attributes}
      {...listeners}
      role="listitem"
      aria-roledescription={t("annotation.ranking.card")}
      aria-label={item.rank === null ? text : t("annotation.ranking.rankedAs", { option: text, rank: item.rank })}
      onKeyDown={(e) => onKeyDown(e, item)}
    >
      {text}
      {s && suggestedRank !== null && (
        <>
          <span className="rank-card__suggested">#{suggestedRank}</span>
          <SuggestionMark suggestion={s} score={s.scoreFor(item.value)} />
        </>
      )}
    </button>
  );
}

/**
 * Ranking: drag cards from the unranked column into numbered slots (a slot may hold several cards:
 * ties), or drag back to unrank. Keyboard: type a slot number on a focused card, Backspace unranks,
 * Tab / Shift+Tab move between cards.
 */
export const RankingQuestion = observer(function RankingQuestion({
  record,
  question,
  form,
  disabled = false,
}: {
  record: DatasetRecord;
  question: Question;
  form: FormController;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  form.track();
  const root = useRef<HTMLDivElement>(null);
  const buffer = useMemo(() => new DigitBuffer(), []);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }));
  const items = (question.answer.value as RankingItem[] | null) ?? [];
  const { slots, unranked } = rankingSlots(items);
  const textOf = (value: string) => question.options.find((o) => String(o.value) === value)?.text ?? value;

  const move = (value: string, rank: number | null, keyboard = false) => {
    if (disabled) return;
    const next = rankOption(items, value, rank);
    form.set(record, question, next);
    if (keyboard) {
      // focus follows the moved card, then returns to the first unranked card
      setTimeout(() => {
        const firstUnranked = next.find((i) => i.rank === null);
        const target = root.current?.querySelector<HTMLElement>(`[data-rank-card="${CSS.escape(firstUnranked?.value ?? value)}"]`);
        target?.focus();
      }, 0);
    }
  };

  const onDragEnd = (event: DragEndEvent) => {
    const over = event.over?.id;
    if (over === undefined) return;
    const value = String(event.active.id);
    if (over === "unranked") move(value, null);
    else if (typeof over === "string" && over.startsWith("slot-")) move(value, Number(over.slice(5)));
  };

  const onCardKey = (event: KeyboardEvent<HTMLButtonElement>, item: RankingItem) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^\d$/.test(event.key)) {
      event.preventDefault();
      event.stopPropagation();
      buffer.push(event.key, items.length, (n) => move(item.value, n, true));
    } else if (event.key === "Backspace") {
      event.preventDefault();
      event.stopPropagation();
      move(item.value, null, true);
    } else if (event.key === "Enter" || event.key === " ") {
      // Enter submits the form (global); Space does nothing on a card (dnd-kit keyboard drag is not used)
      event.preventDefault();
    }
  };

  const card = (i: RankingItem) => (
    <Card key={i.value} item={i} text={textOf(i.value)} question={question} onKeyDown={onCardKey} disabled={disabled} />
  );

  return (
    <QuestionShell question={question} form={form}>
      <DndContext sensors={sensors} onDragEnd={onDragEnd}>
        <div className="ranking" ref={root}>
          <Zone id="unranked" className="rank-zone rank-zone--unranked" label={t("annotation.ranking.unranked")}>
            {unranked.map(card)}
          </Zone>
          <div className="rank-slots">
            {slots.map((cards, i) => (
              <Zone key={i} id={`slot-${i + 1}`} className="rank-zone rank-slot" label={t("annotation.ranking.slot", { rank: i + 1 })}>
                <span className="rank-slot__number" aria-hidden="true">
                  {i + 1}
                </span>
                {cards.map(card)}
              </Zone>
            ))}
          </div>
        </div>
      </DndContext>
    </QuestionShell>
  );
});
