import type { ReactNode } from "react";
import { AppHeader } from "../components/AppHeader";
import { Breadcrumbs, type Breadcrumb } from "../components/Breadcrumbs";

export interface AnnotationLayoutProps {
  breadcrumbs?: Breadcrumb[];
  /** Extra header content (e.g. dataset actions), placed between the breadcrumbs and the avatar. */
  headerActions?: ReactNode;
  children: ReactNode;
}

/** Spec section 2 annotation page layout: the app header and a full-height centre area. */
export function AnnotationLayout({ breadcrumbs, headerActions, children }: AnnotationLayoutProps) {
  return (
    <div className="annotation-layout">
      <AppHeader actions={headerActions}>{breadcrumbs && <Breadcrumbs items={breadcrumbs} />}</AppHeader>
      <main id="main" className="annotation-layout__center">
        {children}
      </main>
    </div>
  );
}
