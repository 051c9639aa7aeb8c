import { z } from './zod.js';

/** The job catalog: every job name with its payload schema, shared by producers and the worker. */
export const JOB_SCHEMAS = {
  'notify.assigned': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    actorId: z.string(),
    userIds: z.array(z.string()),
  }),
  'notify.comment': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    commentId: z.string(),
    actorId: z.string(),
  }),
  'automations.task_created': z.object({
    workspaceId: z.string(),
    taskId: z.string(),
    boardId: z.string(),
    statusId: z.string(),
    actorId: z.string(),
  }),
  'webhooks.deliver': z.object({ deliveryId: z.string() }),
} as const;

export type JobName = keyof typeof JOB_SCHEMAS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_SCHEMAS)[N]>;

/** Builds a validated outbox job. */
export function job<N extends JobName>(name: N, payload: JobPayload<N>): { name: N; payload: JobPayload<N> } {
  return { name, payload: JOB_SCHEMAS[name].parse(payload) as JobPayload<N> };
}
