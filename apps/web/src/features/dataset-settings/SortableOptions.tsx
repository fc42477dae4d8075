import { useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from "@dnd-kit/core";
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";

export interface SortableOption {
  id: string;
  label: string;
}

interface Props {
  items: readonly SortableOption[];
  /** Moves the item at `from` to `to` (indexes in `items`). */
  onMove: (from: number, to: number) => void;
  /** The row's own content (inputs, swatches) between the drag handle and the up/down buttons. */
  children?: (item: SortableOption, index: number) => ReactNode;
  className?: string;
}

/**
 * A list whose order is changed by drag and drop (dnd-kit, pointer and keyboard: focus the handle,
 * Space or Enter to pick up, arrow keys to move, Space or Enter to drop, Escape to cancel; announced to
 * screen readers in the user's language) and by the up/down buttons of each row.
 */
export function SortableOptions({ items, onMove, children, className = "" }: Props) {
  const { t } = useTranslation();
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const indexOf = (id: UniqueIdentifier | undefined) => items.findIndex((i) => i.id === id);
  const said = (key: string, id: UniqueIdentifier, overId?: UniqueIdentifier) => {
    const position = indexOf(overId ?? id) + 1;
    return t(`datasetSettings.sortable.${key}`, { label: items[indexOf(id)]?.label ?? String(id), position, count: items.length });
  };
  // dnd-kit reports the start position as a first "over": keep saying "picked up" until the item really moves.
  const moved = useRef(false);
  const announcements: Announcements = {
    onDragStart: ({ active }) => {
      moved.current = false;
      return said("pickedUp", active.id);
    },
    onDragOver: ({ active, over }) => {
      if (!over) return undefined;
      if (over.id !== active.id) moved.current = true;
      return said(moved.current ? "movedOver" : "pickedUp", active.id, over.id);
    },
    onDragEnd: ({ active, over }) => (over ? said("dropped", active.id, over.id) : said("cancelled", active.id)),
    onDragCancel: ({ active }) => said("cancelled", active.id),
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const from = indexOf(active.id);
    const to = indexOf(over?.id);
    if (from >= 0 && to >= 0 && from !== to) onMove(from, to);
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{ announcements, screenReaderInstructions: { draggable: t("datasetSettings.sortable.instructions") } }}
    >
      <SortableContext items={items.map((i) => i.id)} strategy={verticalListSortingStrategy}>
        <ol className={`sortable-options ${className}`.trim()}>
          {items.map((item, index) => (
            <SortableRow key={item.id} item={item} index={index} count={items.length} onMove={onMove}>
              {children?.(item, index)}
            </SortableRow>
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function SortableRow({
  item,
  index,
  count,
  onMove,
  children,
}: {
  item: SortableOption;
  index: number;
  count: number;
  onMove: (from: number, to: number) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: item.id,
    attributes: { roleDescription: t("datasetSettings.sortable.roleDescription") },
  });
  const style = {
    transform: transform ? `translate3d(${Math.round(transform.x)}px, ${Math.round(transform.y)}px, 0)` : undefined,
    transition,
  };
  return (
    <li ref={setNodeRef} style={style} className={`settings-option${isDragging ? " settings-option--dragging" : ""}`} data-option={item.id}>
      <button
        ref={setActivatorNodeRef}
        type="button"
        className="button button--small sortable-option__handle"
        {...attributes}
        {...listeners}
        aria-label={t("datasetSettings.sortable.handle", { label: item.label })}
      >
        <span aria-hidden="true">⠿</span>
      </button>
      {children ?? <span className="sortable-option__label">{item.label}</span>}
      <button
        type="button"
        className="button button--small"
        disabled={index === 0}
        aria-label={t("datasetSettings.questions.moveUp", { label: item.label })}
        onClick={() => onMove(index, index - 1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="button button--small"
        disabled={index === count - 1}
        aria-label={t("datasetSettings.questions.moveDown", { label: item.label })}
        onClick={() => onMove(index, index + 1)}
      >
        ↓
      </button>
    </li>
  );
}
