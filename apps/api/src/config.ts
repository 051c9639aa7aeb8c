import { z } from 'zod';
import { parseConfig, portVariable, ServerConfigShape, WebhookConfigShape } from '@tt/http';
import { BrowserConfigShape, OAuthConfigShape } from '@tt/mcp';

export { trustProxy } from '@tt/http';

/** Process configuration, parsed once from the environment in main and passed down. */
export const ConfigSchema = z.object({
  ...ServerConfigShape,
  ...WebhookConfigShape,
  // Embedded mode runs the MCP gateway too: its sign-in and browser-client settings are checked here at start.
  ...OAuthConfigShape,
  ...BrowserConfigShape,
  PORT: portVariable(3000),
  ADMIN_TOKEN: z.string().min(16).optional(),
  PUBLIC_URL: z.string().optional(),
});
export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig(ConfigSchema, env);
}

