import type { Question } from "../../entities/question.js";
import { InvalidSettingsUpdateError } from "../../messages.js";
import type { QuestionRepository } from "../../ports/settings-repositories.js";
import { saveSetting } from "./save-setting.js";

/** PATCH /v1/questions/{id} with title, description (null when blank) and settings. */
export class UpdateQuestionSettingUseCase {
  constructor(private readonly questions: QuestionRepository) {}
  execute(question: Question): Promise<boolean> {
    if (!question.isValid) throw new InvalidSettingsUpdateError("Question");
    return saveSetting(question, () =>
      this.questions.update(question.id, {
        title: question.title.trim(),
        description: question.descriptionForUpdate,
        settings: question.settings,
      }),
    );
  }
}
