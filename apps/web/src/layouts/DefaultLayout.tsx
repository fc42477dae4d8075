import type { ReactNode } from "react";

/** The plain layout: one main region (error page, OAuth callback, placeholders). */
export function DefaultLayout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <main id="main" className={`layout-default${className ? ` ${className}` : ""}`}>
      {children}
    </main>
  );
}
