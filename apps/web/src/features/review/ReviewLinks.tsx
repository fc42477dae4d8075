import { useTranslation } from "react-i18next";
import { mayReview, type Role } from "@tessera/domain";
import { paths } from "../../app/routes";
import { PrefetchLink } from "../../components/PrefetchLink";

/** The annotation page's way into review mode and the Agreement screen (owners and admins only); both links carry the page's filters (their metadata filters apply). */
export function ReviewLinks({ datasetId, role, search }: { datasetId: string; role: Role | undefined; search: string }) {
  const { t } = useTranslation();
  if (!role || !mayReview(role)) return null;
  return (
    <>
      <PrefetchLink className="button button--ghost" to={`${paths.review(datasetId)}${search}`}>
        {t("review.links.review")}
      </PrefetchLink>
      <PrefetchLink className="button button--ghost" to={paths.agreement(datasetId, search)}>
        {t("review.links.agreement")}
      </PrefetchLink>
    </>
  );
}
