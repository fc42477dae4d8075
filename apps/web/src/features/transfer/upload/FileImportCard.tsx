import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { paths } from "../../../app/routes";

/** The home page's entry to creating a dataset from a file (owners and admins). */
export function FileImportCard() {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="file-import-title">
      <h2 id="file-import-title">{t("transfer.newDataset.title")}</h2>
      <p>{t("transfer.newDataset.text")}</p>
      <Link className="button button--primary" to={paths.newFromFile()}>
        {t("transfer.newDataset.button")}
      </Link>
    </section>
  );
}
