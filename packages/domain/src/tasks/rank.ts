/** Gap between neighbouring ranks when a column is laid out afresh. */
export const RANK_STEP = 1024;

/** A rank strictly between two neighbours (null = open end), or null when no room is left. */
export function rankBetween(before: number | null, after: number | null): number | null {
  if (before === null && after === null) return 0;
  if (before === null) return after! - RANK_STEP;
  if (after === null) return before + RANK_STEP;
  const mid = (before + after) / 2;
  return mid > before && mid < after && after - before > 1e-6 ? mid : null;
}
