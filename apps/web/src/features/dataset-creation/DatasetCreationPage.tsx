import { useParams } from "react-router";
import { useTranslation } from "react-i18next";
import { InternalPageLayout } from "../../layouts";

/**
 * Placeholder until the page is built (owned by the dataset-creation engineer). The router lazy-loads this
 * module's named export `DatasetCreationPage`; keep the name and file when replacing it.
 */
export function DatasetCreationPage() {
  const { t } = useTranslation();
  const { id } = useParams();
  return (
    <InternalPageLayout breadcrumbs={[{ label: t("breadcrumbs.home"), to: "/" }, { label: id ?? "" }]} pageHeader={<h1>{t("placeholders.datasetCreation")}</h1>}>
      <p>{t("placeholders.comingSoon")}</p>
    </InternalPageLayout>
  );
}
