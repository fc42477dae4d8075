import { useEffect, useId, useMemo, useRef, useState } from "react";
import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { ChatMessage, DatasetRecord, RecordField } from "@tessera/domain";
import type { FormController } from "../form-controller";
import { renderMarkdown } from "./markdown";
import { buildCustomFieldDocument } from "./custom-template";
import { SpanText } from "./SpanText";
import { useSearchHighlight } from "./search-highlight";
import { textDirection } from "../../../shared/text-direction";
import { CopyButton } from "../../../components/CopyButton";

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="markdown" dir={textDirection(text)} dangerouslySetInnerHTML={{ __html: html }} />;
}

function TextFieldContent({ field, search }: { field: RecordField; search: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const text = String(field.content ?? "");
  useSearchHighlight(ref, field.name, search, text);
  return (
    <div ref={ref} className="field-text">
      {field.field.useMarkdown ? <Markdown text={text} /> : <p dir={textDirection(text)}>{text}</p>}
    </div>
  );
}

function ImageFieldContent({ field }: { field: RecordField }) {
  const { t } = useTranslation();
  const [state, setState] = useState<"loading" | "loaded" | "error">("loading");
  const src = String(field.content ?? "");
  useEffect(() => setState("loading"), [src]);
  return (
    <div className="field-image">
      {state === "loading" && <span aria-busy="true" className="spinner" />}
      {state === "error" ? (
        <p role="alert" className="field-image__error">
          {t("annotation.fields.imageError")}
        </p>
      ) : (
        <img src={src} alt={field.title} onLoad={() => setState("loaded")} onError={() => setState("error")} />
      )}
    </div>
  );
}

const ROLE_COLORS = ["#3b82f6", "#16a34a", "#d97706", "#9333ea", "#db2777"];

/** With two roles the first one's bubbles sit on the right, like a messenger; otherwise all on the left. */
const chatSideClass = (right: boolean): string => (right ? "chat__message--right" : "chat__message--left");

function ChatFieldContent({ field, search }: { field: RecordField; search: string }) {
  const ref = useRef<HTMLOListElement>(null);
  const messages = (field.content as ChatMessage[]) ?? [];
  useSearchHighlight(ref, field.name, search, messages);
  const roles = [...new Set(messages.map((m) => m.role))];
  const alternate = roles.length <= 2;
  return (
    <ol ref={ref} className="chat">
      {messages.map((m, i) => {
        const color = ROLE_COLORS[roles.indexOf(m.role) % ROLE_COLORS.length];
        const showRole = i === 0 || messages[i - 1]?.role !== m.role;
        return (
          <li
            key={i}
            className={`chat__message ${chatSideClass(alternate && roles.indexOf(m.role) === 0)}`}
            style={{ borderColor: color }}
            data-role={m.role}
          >
            {showRole && (
              <span className="chat__role" style={{ color }}>
                {m.role}
              </span>
            )}
            {field.field.useMarkdown ? <Markdown text={m.content} /> : <p dir={textDirection(m.content)}>{m.content}</p>}
          </li>
        );
      })}
    </ol>
  );
}

function CustomFieldContent({ field, record }: { field: RecordField; record: DatasetRecord }) {
  const frameId = useId();
  const ref = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(150);
  const doc = useMemo(() => {
    const fields: Record<string, unknown> = {};
    for (const f of record.fields) fields[f.name] = f.content;
    return buildCustomFieldDocument(
      field.field.template,
      { id: record.id, fields, metadata: record.metadata },
      field.field.settings.advanced_mode ?? false,
      frameId,
    );
  }, [field, record, frameId]);
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const frame = ref.current?.contentWindow;
      if (!frame || event.source !== frame) return;
      const data = event.data as { tesseraFrame?: string; height?: number; tesseraFrameReady?: boolean } | null;
      // The frame page (served with its own CSP, docs/security.md) asks for its document once loaded.
      if (data?.tesseraFrameReady === true) frame.postMessage({ tesseraDocument: doc }, "*");
      else if (data?.tesseraFrame === frameId && typeof data.height === "number") setHeight(Math.min(data.height + 16, 4000));
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [frameId, doc]);
  // Not srcdoc: a srcdoc frame inherits the app's CSP (no inline script), so templates load into a
  // same-server page whose CSP allows their scripts, in a sandbox without allow-same-origin. A new
  // document gets a new frame (key).
  return (
    <iframe
      key={doc}
      ref={ref}
      className="field-custom"
      title={field.title}
      sandbox="allow-scripts"
      src={CUSTOM_FIELD_FRAME_URL}
      style={{ height }}
    />
  );
}

/** Served by the server (apps/server/src/security/index.ts). */
export const CUSTOM_FIELD_FRAME_URL = "/frames/custom-field.html";

/** The fields of one record; a text field annotated by a span question becomes a span area. */
export const RecordFields = observer(function RecordFields({
  record,
  form,
  search = "",
  spanDisabled = false,
}: {
  record: DatasetRecord;
  form: FormController;
  search?: string;
  spanDisabled?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="record-fields">
      {record.fields.map((f) => {
        if (f.content === undefined || f.content === null || f.content === "") return null; // fields missing from a record are not rendered
        const span = record.questions.find((q) => q.type === "span" && q.settings.field === f.name);
        return (
          <section key={f.name} className="record-field" aria-label={f.title}>
            <header className="record-field__header">
              <h3>{f.title}</h3>
              {f.field.isText && (
                <CopyButton text={String(f.content)} label={t("annotation.fields.copy")} iconOnly className="record-field__copy" />
              )}
            </header>
            {span && f.field.isText ? (
              <SpanText record={record} question={span} text={String(f.content)} form={form} disabled={spanDisabled} search={search} />
            ) : f.field.isImage ? (
              <ImageFieldContent field={f} />
            ) : f.field.isChat ? (
              <ChatFieldContent field={f} search={search} />
            ) : f.field.isCustom ? (
              <CustomFieldContent field={f} record={record} />
            ) : (
              <TextFieldContent field={f} search={search} />
            )}
          </section>
        );
      })}
    </div>
  );
});

export { Markdown };
