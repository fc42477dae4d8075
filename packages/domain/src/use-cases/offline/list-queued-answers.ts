import type { OutboxStore } from "../../offline/ports.js";
import type { OutboxEntry } from "../../offline/outbox.js";

/** The user's queued answers on this device, oldest first (the counter, the conflicts to choose on). */
export class ListQueuedAnswersUseCase {
  constructor(private readonly outbox: OutboxStore) {}
  execute(userId: string): Promise<OutboxEntry[]> {
    return this.outbox.list(userId);
  }
}
