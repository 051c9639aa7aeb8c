/** Debian's chromium launcher (or CHROMIUM_PATH). */
export const CHROMIUM_PATH: string;
/** Flags for a headless run that never talks to Google's services. */
export const CHROMIUM_ARGS: string[];
/** `{ path }` of a Chromium binary (installed with apt-get when absent, as root), or `{ skip }` with the reason. */
export function ensureChromium(o?: { log?: (line: string) => void }): { path: string; skip?: undefined } | { path?: undefined; skip: string };
