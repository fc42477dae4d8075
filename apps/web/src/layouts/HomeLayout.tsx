import type { ReactNode } from "react";
import { AppHeader } from "../components/AppHeader";

/** Spec section 2 home layout: header, content, and a sidebar (300–600 px wide above 769 px, below the content on narrow screens). */
export function HomeLayout({ children, sidebar, sidebarLabel }: { children: ReactNode; sidebar?: ReactNode; sidebarLabel?: string }) {
  return (
    <div className="home-layout">
      <AppHeader />
      <div className="home-layout__body">
        <main id="main" className="home-layout__content">
          {children}
        </main>
        {sidebar && (
          <aside className="home-layout__sidebar" aria-label={sidebarLabel}>
            {sidebar}
          </aside>
        )}
      </div>
    </div>
  );
}
