import { Link } from "react-router";
import { useTranslation } from "react-i18next";

export interface Breadcrumb {
  label: string;
  to?: string;
}

/** A breadcrumb trail; the last item is the current page. */
export function Breadcrumbs({ items }: { items: Breadcrumb[] }) {
  const { t } = useTranslation();
  return (
    <nav className="breadcrumbs" aria-label={t("breadcrumbs.label")}>
      <ol>
        {items.map((item, i) => {
          const last = i === items.length - 1;
          return (
            <li key={`${item.label}-${i}`}>
              {item.to && !last ? (
                <Link to={item.to}>{item.label}</Link>
              ) : (
                <span aria-current={last ? "page" : undefined}>{item.label}</span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
