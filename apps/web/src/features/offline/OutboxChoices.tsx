import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import type { ConflictChoice, OutboxEntry, RecordResponse } from "@tessera/domain";
import { useOfflineAnswers } from "./offline-context";
import { answerRows } from "./answer-summary";

/**
 * Queued answers of a dataset that need the annotator: a conflict (the server's newer answer next to theirs,
 * 'Keep mine' / 'Keep the server's') or a refusal ('Try again' / 'Drop my answer').
 */
export const OutboxChoices = observer(function OutboxChoices({
  datasetId,
  onChosen,
}: {
  datasetId: string;
  onChosen?: (entry: OutboxEntry, server: RecordResponse | null, choice: ConflictChoice) => void;
}) {
  const { t } = useTranslation();
  const offline = useOfflineAnswers();
  const entries = [...offline.conflicts, ...offline.refused].filter((e) => e.datasetId === datasetId);
  if (entries.length === 0) return null;
  const choose = async (entry: OutboxEntry, choice: ConflictChoice) => {
    const server = await offline.resolve(entry, choice);
    onChosen?.(entry, server, choice);
  };
  return (
    <section className="outbox-choices" aria-label={t("offline.conflict.title")}>
      <h2>{t("offline.conflict.title")}</h2>
      {entries.map((entry) => (
        <div
          key={entry.seq}
          className="outbox-choice"
          data-outbox-record={entry.recordId}
          role="group"
          aria-label={
            entry.state === "conflict"
              ? t("offline.conflict.changed", { record: entry.recordId })
              : t("offline.conflict.refused", { record: entry.recordId, status: entry.error })
          }
        >
          <p>
            {entry.state === "conflict"
              ? t("offline.conflict.changed", { record: entry.recordId })
              : t("offline.conflict.refused", { record: entry.recordId, status: entry.error })}
          </p>
          {entry.state === "conflict" && (
            <table className="outbox-choice__compare">
              <thead>
                <tr>
                  <th scope="col" />
                  <th scope="col">
                    {t("offline.conflict.yours")} ({t(`annotation.status.${entry.status}`)})
                  </th>
                  <th scope="col">
                    {t("offline.conflict.server")} {entry.server ? `(${t(`annotation.status.${entry.server.status}`)})` : ""}
                  </th>
                </tr>
              </thead>
              <tbody>
                {entry.server === null && (
                  <tr>
                    <th scope="row" />
                    <td />
                    <td>{t("offline.conflict.none")}</td>
                  </tr>
                )}
                {answerRows(entry.values, entry.server?.values ?? null).map((row) => (
                  <tr key={row.question}>
                    <th scope="row">{row.question}</th>
                    <td data-side="mine">{row.mine}</td>
                    <td data-side="server">{row.theirs}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="outbox-choice__actions">
            <button
              type="button"
              className="button button--primary"
              onClick={() => {
                void choose(entry, "mine");
              }}
            >
              {entry.state === "conflict" ? t("offline.conflict.keepMine") : t("offline.conflict.retry")}
            </button>
            <button
              type="button"
              className="button"
              onClick={() => {
                void choose(entry, "theirs");
              }}
            >
              {entry.state === "conflict" ? t("offline.conflict.keepServer") : t("offline.conflict.drop")}
            </button>
          </div>
        </div>
      ))}
    </section>
  );
});
