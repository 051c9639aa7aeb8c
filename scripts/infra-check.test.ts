import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInfra } from './infra-check.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// What infra-check reads outside infra/: the manifests the Dockerfiles copy and the apps' build configs.
const NEEDED = ['infra', 'package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', ...['api', 'mcp', 'worker'].flatMap((a) => [`apps/${a}/package.json`, `apps/${a}/tsup.config.ts`])];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'infra-check-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the files infra-check reads, with one file changed by `edit`. */
function variant(name: string, file: string, edit: (text: string) => string): string {
  const root = path.join(tmp, name);
  for (const f of NEEDED) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    cpSync(path.join(ROOT, f), path.join(root, f), { recursive: true });
  }
  const target = path.join(root, file);
  const before = readFileSync(target, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`variant ${name}: the edit changed nothing in ${file}`);
  writeFileSync(target, after);
  return root;
}

describe('infra-check', () => {
  it('passes on the repository', async () => {
    const { files, problems } = await checkInfra();
    expect(problems).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['infra/compose.yaml', 'infra/docker/api.Dockerfile', 'infra/k8s/api.yaml']));
  });

  it.each([
    ['root-user', 'infra/docker/api.Dockerfile', (t: string) => t.replace('USER node', 'USER root'), /non-root USER/],
    ['single-stage', 'infra/docker/mcp.Dockerfile', (t: string) => t.replace(/^FROM \$\{NODE_IMAGE\} AS build$/m, '').replace(/^COPY --from=build.*$/gm, ''), /multi-stage/],
    ['bad-dockerfile', 'infra/docker/worker.Dockerfile', (t: string) => t.replace('EXPOSE 3002', 'EXPOSE port'), /Invalid containerPort/],
    ['one-api', 'infra/compose.yaml', (t: string) => t.replace('replicas: 2', 'replicas: 1'), /api needs 2 replicas/],
    ['compose-schema', 'infra/compose.yaml', (t: string) => t.replace('condition: service_completed_successfully', 'condition: done'), /dclint/],
    ['readiness', 'infra/k8s/mcp.yaml', (t: string) => t.replace('path: /ready', 'path: /health'), /readinessProbe must GET \/ready/],
    ['k8s-schema', 'infra/k8s/worker.yaml', (t: string) => t.replace('containerPort: 3002', 'containerPort: health'), /containerPort must be integer/],
    ['missing-secret', 'infra/k8s/api.yaml', (t: string) => t.replace('name: task-tracker-secrets', 'name: other-secrets'), /Secret other-secrets does not exist/],
    ['no-hpa', 'infra/k8s/api.yaml', (t: string) => t.replace('name: task-tracker-api\n  minReplicas', 'name: task-tracker-mcp\n  minReplicas'), /no HorizontalPodAutoscaler for the api/],
    ['no-scrape', 'infra/k8s/worker.yaml', (t: string) => t.replace('prometheus.io/port: "3002"', 'prometheus.io/port: "9999"'), /task-tracker-worker: pod annotations prometheus.io/],
    ['compose-scrape', 'infra/compose.yaml', (t: string) => t.replace('prometheus.io/port: "3001"', 'prometheus.io/port: "3000"'), /mcp needs labels prometheus.io/],
    ['public-metrics', 'infra/k8s/ingress.yaml', (t: string) => t.replace('path: /\n            pathType: Exact', 'path: /\n            pathType: Prefix'), /would publish \/metrics/],
    ['gc-flags', 'infra/docker/api.Dockerfile', (t: string) => t.replace('"--min-semi-space-size=32", ', ''), /CMD must pass --min-semi-space-size=32/],
    ['serve-flags', 'package.json', (t: string) => t.replace('--max-semi-space-size=32 ', ''), /scripts.serve must pass --max-semi-space-size=32/],
    ['k8s-grace', 'infra/k8s/api.yaml', (t: string) => t.replace('terminationGracePeriodSeconds: 40', 'terminationGracePeriodSeconds: 25'), /api: grace period 25 s must exceed SHUTDOWN_DRAIN_MS 5 s \+ shutdown 20 s = 25 s \(terminationGracePeriodSeconds\)/],
    ['k8s-drain', 'infra/k8s/config.yaml', (t: string) => t.replace('SHUTDOWN_DRAIN_MS: "5000"', 'SHUTDOWN_DRAIN_MS: "30000"'), /mcp: grace period 40 s must exceed SHUTDOWN_DRAIN_MS 30 s/],
    ['k8s-prestop', 'infra/k8s/worker.yaml', (t: string) => t.replace('          resources:', '          lifecycle:\n            preStop:\n              exec:\n                command: ["sleep", "20"]\n          resources:'), /worker: grace period 75 s must exceed preStop 20 s \+ shutdown 60 s = 80 s/],
    ['compose-grace', 'infra/compose.yaml', (t: string) => t.replace('stop_grace_period: 75s', 'stop_grace_period: 1m'), /worker: grace period 60 s must exceed shutdown 60 s = 60 s \(stop_grace_period\)/],
    ['compose-default-grace', 'infra/compose.yaml', (t: string) => t.replace("      - '3000'\n    stop_grace_period: 30s\n", "      - '3000'\n"), /api: grace period 10 s must exceed SHUTDOWN_DRAIN_MS 5 s \+ shutdown 20 s = 25 s/],
    ['proxy-metrics', 'infra/nginx/api.conf', (t: string) => t.replace('location = /metrics', 'location = /other'), /must refuse \/metrics/],
  ])('finds the problem in %s', async (name, file, edit, expected) => {
    const { problems } = await checkInfra(variant(name, file, edit));
    expect(problems.join('\n')).toMatch(expected);
  });
});
