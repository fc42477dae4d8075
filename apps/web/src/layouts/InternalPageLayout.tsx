import type { ReactNode } from "react";
import { AppHeader } from "../components/AppHeader";
import { Breadcrumbs, type Breadcrumb } from "../components/Breadcrumbs";

export interface InternalPageLayoutProps {
  breadcrumbs?: Breadcrumb[];
  /** The page header: usually the page title and actions. */
  pageHeader?: ReactNode;
  children: ReactNode;
}

/** Spec section 2 internal page: header, page header, content, in a container of at most 1500 px. */
export function InternalPageLayout({ breadcrumbs, pageHeader, children }: InternalPageLayoutProps) {
  return (
    <div className="internal-layout">
      <AppHeader>{breadcrumbs && <Breadcrumbs items={breadcrumbs} />}</AppHeader>
      <div className="internal-layout__container">
        {pageHeader && <div className="internal-layout__page-header">{pageHeader}</div>}
        <main id="main" className="internal-layout__content">
          {children}
        </main>
      </div>
    </div>
  );
}
