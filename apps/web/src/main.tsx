import "reflect-metadata";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createContainer } from "@tessera/infrastructure";
import { createI18n } from "./i18n/i18n";
import { App } from "./app/App";
import "./styles/global.css";

const container = createContainer({ basePath: import.meta.env.VITE_API_BASE_PATH ?? "api" });
const i18n = await createI18n();
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App container={container} i18n={i18n} />
  </StrictMode>,
);
