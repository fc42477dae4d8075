/** The save rule of the setting use cases (they throw on invalid edits first): a failed save reverts silently; a successful one takes updated_at as baseline. */
export async function saveSetting(
  entity: { restore(): void; commit(updatedAt?: string): void },
  run: () => Promise<{ updatedAt?: string }>,
): Promise<boolean> {
  try {
    const saved = await run();
    entity.commit(saved.updatedAt);
    return true;
  } catch {
    entity.restore();
    return false;
  }
}
