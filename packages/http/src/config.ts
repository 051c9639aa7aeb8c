import type { z } from 'zod';

/** Parses process configuration with a zod schema, naming every bad variable. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Bad configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** Express trust-proxy value from TRUST_PROXY: off by default, so X-Forwarded-For is ignored. */
export function trustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** MIGRATE_ON_START: migrations run when a process starts unless set to false or 0 (a one-shot job migrates instead). */
export function migrateOnStart(value: string | undefined): boolean {
  return !(value === 'false' || value === '0');
}
