export { DefaultLayout } from "./DefaultLayout";
export { AuthLayout, type AuthLayoutProps } from "./AuthLayout";
export { HomeLayout } from "./HomeLayout";
export { InternalPageLayout, type InternalPageLayoutProps } from "./InternalPageLayout";
export { AnnotationLayout, type AnnotationLayoutProps } from "./AnnotationLayout";
export type { Breadcrumb } from "../components/Breadcrumbs";
