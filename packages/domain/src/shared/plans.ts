import { z } from './zod.js';

export const PLANS = ['free', 'team', 'business'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

/** Every plan limit in one place. */
export const PLAN_LIMITS: Record<Plan, { api: boolean; mcp: boolean; projects: number; boardsPerProject: number; columnsPerBoard: number }> = {
  free: { api: false, mcp: false, projects: 3, boardsPerProject: 1, columnsPerBoard: 10 },
  team: { api: true, mcp: false, projects: 20, boardsPerProject: 5, columnsPerBoard: 20 },
  business: { api: true, mcp: true, projects: 1000, boardsPerProject: 50, columnsPerBoard: 50 },
};
