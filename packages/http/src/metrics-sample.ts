/**
 * For tests: the value of one sample in Prometheus text, matched by name and by the given labels (others may be
 * present); undefined when no sample matches.
 */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** Every value of `label` among the samples of `name`. */
export function labelValues(text: string, name: string, label: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (m) out.add(m[1]!);
  }
  return [...out];
}
