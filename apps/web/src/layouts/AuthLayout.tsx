import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

export interface AuthLayoutProps {
  title: string;
  subtitle?: string;
  /** The form, buttons, links and error text. */
  children: ReactNode;
  /** Terms or fine print under the form. */
  footer?: ReactNode;
}

/** Spec section 2 authentication layout: a brand claim panel on wide screens and a form column. */
export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  const { t } = useTranslation();
  return (
    <div className="auth-layout">
      <aside className="auth-brand" aria-hidden="true">
        <div className="auth-brand__logo">
          <img src="/favicon.svg" alt="" width={40} height={40} /> {t("brand.name")}
        </div>
        <p className="auth-brand__claim">{t("brand.claim")}</p>
        <p className="auth-brand__subclaim">{t("brand.subclaim")}</p>
      </aside>
      <main id="main" className="auth-form">
        <div className="auth-form__column">
          <div className="auth-form__mobile-logo">
            <img src="/favicon.svg" alt="" width={32} height={32} /> {t("brand.name")}
          </div>
          {subtitle && <p className="auth-form__subtitle">{subtitle}</p>}
          <h1 id="auth-title">{title}</h1>
          {children}
          {footer && <div className="auth-form__footer">{footer}</div>}
        </div>
      </main>
    </div>
  );
}
