import { useState, type ReactNode } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { DatasetRecord, DatasetSettings } from "@tessera/domain";
import type { AnnotationViewModel } from "./annotation-view-model";

/** A record with its status badge, metadata popover, similarity score and 'Find similar'. */
export const RecordCard = observer(function RecordCard({
  vm,
  record,
  settings,
  children,
  header,
}: {
  vm: AnnotationViewModel;
  record: DatasetRecord;
  settings: DatasetSettings | null;
  children: ReactNode;
  header?: ReactNode;
}) {
  const { t } = useTranslation();
  vm.form.track();
  const [info, setInfo] = useState(false);
  const [similar, setSimilar] = useState(false);
  const vectors = settings?.vectors ?? [];
  const [vectorName, setVectorName] = useState<string>("");
  const [order, setOrder] = useState<"most" | "least">("most");
  const [limit, setLimit] = useState(50);
  const metadata = Object.entries(record.metadata);
  return (
    <article className={`record-card record-card--${record.status}`} aria-label={t("annotation.record.label")} data-record-id={record.id}>
      <header className="record-card__header">
        {header}
        <span
          className={`status-badge status-badge--${record.status}`}
          title={record.isCompleted ? t("annotation.record.completeTooltip") : undefined}
        >
          {t(`annotation.status.${record.status}`)}
        </span>
        {vm.isFailed(record) && (
          <span className="status-badge status-badge--failed" role="status">
            {t("annotation.saveFailed.badge")}
          </span>
        )}
        {record.score.hasScore && (
          <span className="record-card__score">{t("annotation.similarity.score", { score: record.score.percentage })}</span>
        )}
        <span className="record-card__spacer" />
        {metadata.length > 0 && (
          <button type="button" className="button button--ghost" aria-expanded={info} onClick={() => setInfo(!info)}>
            {t("annotation.record.info")}
          </button>
        )}
        {vectors.length > 0 && (
          <button
            type="button"
            className="button button--ghost"
            aria-expanded={similar}
            onClick={() => {
              setSimilar(!similar);
              setVectorName(vectorName || vectors[0]?.name || "");
            }}
          >
            {t("annotation.similarity.find")}
          </button>
        )}
      </header>
      {info && (
        <dl className="record-card__metadata">
          {metadata.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {similar && (
        <form
          className="similarity-config"
          onSubmit={(e) => {
            e.preventDefault();
            setSimilar(false);
            vm.findSimilar({ recordId: record.id, vectorName: vectorName || vectors[0]?.name || "", order, limit });
          }}
        >
          <label>
            {t("annotation.similarity.using")}
            <select value={vectorName} onChange={(e) => setVectorName(e.target.value)}>
              {vectors.map((v) => (
                <option key={v.name} value={v.name}>
                  {v.title || v.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t("annotation.similarity.order")}
            <select value={order} onChange={(e) => setOrder(e.target.value as "most" | "least")}>
              <option value="most">{t("annotation.similarity.most")}</option>
              <option value="least">{t("annotation.similarity.least")}</option>
            </select>
          </label>
          <label>
            {t("annotation.similarity.limit")}
            <input
              type="number"
              min={1}
              max={1000}
              value={limit}
              onChange={(e) => setLimit(Math.max(1, Math.min(1000, Number(e.target.value) || 1)))}
            />
          </label>
          <button type="submit" className="button button--primary">
            {t("annotation.similarity.search")}
          </button>
        </form>
      )}
      {children}
    </article>
  );
});
