import { observer } from "mobx-react-lite";
import { useTranslation } from "react-i18next";
import { useOfflineAnswers } from "./offline-context";

/** Asked before sign-out while answers or forms are only on this browser. */
export const SignOutPrompt = observer(function SignOutPrompt() {
  const { t } = useTranslation();
  const offline = useOfflineAnswers();
  const unsent = offline.signOutPrompt;
  if (!unsent) return null;
  return (
    <div className="sign-out-prompt" role="alertdialog" aria-labelledby="sign-out-title" aria-describedby="sign-out-text">
      <h2 id="sign-out-title">{t("offline.signOut.title")}</h2>
      <p id="sign-out-text">{t("offline.signOut.text", { answers: unsent.answers, forms: unsent.forms })}</p>
      <button type="button" className="button button--primary" onClick={() => offline.cancelSignOut()}>
        {t("offline.signOut.stay")}
      </button>
      <button
        type="button"
        className="button"
        onClick={() => {
          void offline.confirmSignOut();
        }}
      >
        {t("offline.signOut.anyway")}
      </button>
    </div>
  );
});
