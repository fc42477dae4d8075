import { useTranslation } from "react-i18next";
import type { SearchFilter } from "@tessera/domain";
import { parseQuery } from "../../shared/query-params";
import { criteriaFromQuery } from "../annotation/criteria-url";

/** The annotation page's metadata filters, carried in the same URL keys (`_metadata`) to the Agreement screen and review mode. */
export function metadataFiltersOf(datasetId: string, search: string): SearchFilter[] {
  const body = criteriaFromQuery(datasetId, parseQuery(search)).toSearchBody();
  return (body.filters?.and ?? []).filter((f) => f.scope.entity === "metadata");
}

/** Says that the annotation page's metadata filters apply, with a button that drops them. */
export function MetadataFiltersNote({ count, onDrop }: { count: number; onDrop: () => void }) {
  const { t } = useTranslation();
  if (count === 0) return null;
  return (
    <p>
      {t("review.agreement.filters.metadata", { count })}{" "}
      <button type="button" className="button button--small" onClick={onDrop}>
        {t("review.agreement.filters.dropMetadata")}
      </button>
    </p>
  );
}
