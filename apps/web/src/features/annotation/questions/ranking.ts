import type { RankingItem } from "@tessera/domain";

/** Moves one option to a rank (1..N; ties allowed) or back to unranked (null). */
export function rankOption(items: readonly RankingItem[], value: string, rank: number | null): RankingItem[] {
  const max = items.length;
  const target = rank === null ? null : Math.min(Math.max(1, Math.trunc(rank)), max);
  return items.map((i) => (i.value === value ? { value: i.value, rank: target } : { ...i }));
}

/** Options grouped by slot: slots[k] holds the options ranked k+1; unranked separately. */
export function rankingSlots(items: readonly RankingItem[]): { slots: RankingItem[][]; unranked: RankingItem[] } {
  const slots: RankingItem[][] = items.map(() => []);
  const unranked: RankingItem[] = [];
  for (const item of items) {
    if (item.rank === null || item.rank < 1 || item.rank > items.length) unranked.push(item);
    else slots[item.rank - 1]?.push(item);
  }
  return { slots, unranked };
}
