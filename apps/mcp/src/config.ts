import { z } from 'zod';
import { parseConfig, ServerConfigShape } from '@tt/http';
import { BrowserConfigShape } from './edge/cors.js';
import { OAuthConfigShape } from './oauth/settings.js';

export { trustProxy } from '@tt/http';

/** Process configuration of the standalone MCP server, parsed once from the environment in main. */
export const ConfigSchema = z.object({
  ...ServerConfigShape,
  ...OAuthConfigShape,
  ...BrowserConfigShape,
  /**
   * Test only: serve the official conformance suite's fixtures (src/conformance/) beside the real tools, so CI can run
   * the suite against the real protocol paths. Never on in production: the fixtures are not the task tracker's.
   */
  MCP_CONFORMANCE_FIXTURES: z.enum(['0', '1', 'true', 'false']).default('0').transform((v) => v === '1' || v === 'true'),
});
export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig(ConfigSchema, env);
}


/** Host names always accepted in Host and Origin headers (DNS-rebinding protection). */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Local host names plus the comma list of MCP_ALLOWED_HOSTS (ports and schemes in the list are ignored). */
export function allowedHosts(value: string | undefined): string[] {
  const extra = (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
    .map((h) => {
      try {
        return new URL(h.includes('://') ? h : `http://${h}`).hostname;
      } catch {
        return h;
      }
    });
  return [...new Set([...LOCAL_HOSTS, ...extra])];
}
