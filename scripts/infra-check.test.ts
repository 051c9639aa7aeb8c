import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkInfra } from './infra-check.mjs';
import { CI_NODE_VERSIONS, imageNodeProblem, NODE_RELEASES } from './node-versions.mjs';

// dclint is a process of its own (about a second each) and answers the same for the same compose file: a clean answer
// is kept by the file's text, so the variants that leave compose.yaml as it is do not start it again. A failing answer
// is never reused (it names its file), and each variant that edits compose.yaml still gets a dclint run of its own.
vi.mock('node:child_process', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:child_process')>();
  const clean = new Map<string, ReturnType<typeof actual.spawnSync>>();
  const spawnSync = ((command: string, args: readonly string[] = [], options?: object) => {
    if (!command.endsWith(`${path.sep}dclint`)) return actual.spawnSync(command, args, options as never);
    const key = JSON.stringify([command, args.slice(0, -1), readFileSync(args[args.length - 1]!, 'utf8'), options]);
    const known = clean.get(key);
    if (known) return known;
    const result = actual.spawnSync(command, args, options as never);
    if (result.status === 0) clean.set(key, result);
    return result;
  }) as typeof actual.spawnSync;
  return { ...actual, spawnSync, default: { ...actual, spawnSync } };
});

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
  return variantOf(name, { [file]: edit });
}

/** A copy of the files infra-check reads, with each file of `edits` changed by its edit. */
function variantOf(name: string, edits: Record<string, (text: string) => string>): string {
  const root = path.join(tmp, name);
  for (const f of NEEDED) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    cpSync(path.join(ROOT, f), path.join(root, f), { recursive: true });
  }
  for (const [file, edit] of Object.entries(edits)) {
    const target = path.join(root, file);
    const before = readFileSync(target, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`variant ${name}: the edit changed nothing in ${file}`);
    writeFileSync(target, after);
  }
  return root;
}

/** Sets a Dockerfile's NODE_IMAGE default. */
const nodeImage = (image: string) => (t: string) => t.replace(/^ARG NODE_IMAGE=.*$/m, `ARG NODE_IMAGE=${image}`);

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
    ['mcp-gc-flags', 'infra/docker/mcp.Dockerfile', (t: string) => t.replace('"--min-semi-space-size=8", ', ''), /CMD must pass --min-semi-space-size=8/],
    ['serve-flags', 'package.json', (t: string) => t.replace('--max-semi-space-size=32 ', ''), /scripts.serve must pass --max-semi-space-size=32/],
    ['k8s-grace', 'infra/k8s/api.yaml', (t: string) => t.replace('terminationGracePeriodSeconds: 40', 'terminationGracePeriodSeconds: 25'), /api: grace period 25 s must exceed SHUTDOWN_DRAIN_MS 5 s \+ shutdown 20 s = 25 s \(terminationGracePeriodSeconds\)/],
    ['k8s-drain', 'infra/k8s/config.yaml', (t: string) => t.replace('SHUTDOWN_DRAIN_MS: "5000"', 'SHUTDOWN_DRAIN_MS: "30000"'), /mcp: grace period 40 s must exceed SHUTDOWN_DRAIN_MS 30 s/],
    ['k8s-prestop', 'infra/k8s/worker.yaml', (t: string) => t.replace('          resources:', '          lifecycle:\n            preStop:\n              exec:\n                command: ["sleep", "20"]\n          resources:'), /worker: grace period 75 s must exceed preStop 20 s \+ shutdown 60 s = 80 s/],
    ['compose-grace', 'infra/compose.yaml', (t: string) => t.replace('stop_grace_period: 75s', 'stop_grace_period: 1m'), /worker: grace period 60 s must exceed shutdown 60 s = 60 s \(stop_grace_period\)/],
    ['compose-default-grace', 'infra/compose.yaml', (t: string) => t.replace("      - '3000'\n    stop_grace_period: 30s\n", "      - '3000'\n"), /api: grace period 10 s must exceed SHUTDOWN_DRAIN_MS 5 s \+ shutdown 20 s = 25 s/],
    ['proxy-metrics', 'infra/nginx/api.conf', (t: string) => t.replace('location = /metrics', 'location = /other'), /must refuse \/metrics/],
    ['one-mcp', 'infra/compose.yaml', (t: string) => t.replace('one at a time.\n    deploy:\n      replicas: 2', 'one at a time.\n    deploy:\n      replicas: 1'), /mcp needs 2 replicas/],
    ['mcp-published', 'infra/compose.yaml', (t: string) => t.replace("    expose:\n      - '3001'", "    ports:\n      - '127.0.0.1:3001:3001'"), /mcp must be reached through the proxy/],
    ['mcp-upstream', 'infra/nginx/mcp.conf', (t: string) => t.replace('server mcp:3001', 'server api:3000'), /upstream must point at the compose service mcp:3001/],
  ])('finds the problem in %s', async (name, file, edit, expected) => {
    const { problems } = await checkInfra(variant(name, file, edit));
    expect(problems.join('\n')).toMatch(expected);
  });

  // Each checkInfra takes seconds (dclint, the Kubernetes schemas), so one variant holds several problems.
  it('holds every Dockerfile (and a compose build arg) to a supported node image on Alpine', async () => {
    const { problems } = await checkInfra(
      variantOf('node-images', {
        'infra/docker/api.Dockerfile': (t) => nodeImage('node:20-alpine')(t).replace('FROM ${NODE_IMAGE} AS runtime', 'FROM node:24-alpine AS runtime'),
        'infra/docker/mcp.Dockerfile': nodeImage('node:22.12.0-alpine3.21'),
        'infra/docker/worker.Dockerfile': nodeImage('node:25-alpine'),
        'infra/compose.yaml': (t) => t.replace('dockerfile: infra/docker/worker.Dockerfile', 'dockerfile: infra/docker/worker.Dockerfile\n      args:\n        NODE_IMAGE: node:26-bookworm-slim'),
      }),
      { today: '2026-11-25' },
    );
    const text = problems.join('\n');
    expect(text).toMatch(/api.Dockerfile: FROM \$\{NODE_IMAGE\}: Node.js 20 reached its end of life on 2026-04-30/);
    expect(text).toMatch(/api.Dockerfile: the build and runtime stages must use the same node image \(node:20-alpine, node:24-alpine\)/);
    expect(text).toMatch(/mcp.Dockerfile: FROM \$\{NODE_IMAGE\}: Node.js 22 is not tested in CI/);
    expect(text).toMatch(/worker.Dockerfile: FROM \$\{NODE_IMAGE\}: Node.js 25 is not an LTS line/);
    expect(text).toMatch(/compose.yaml: worker build.args.NODE_IMAGE: "node:26-bookworm-slim" is not the official node image on Alpine/);
  });

  it('accepts node 24 and 26 on Alpine, by major version, release or digest', async () => {
    const { problems } = await checkInfra(
      variantOf('node-images-ok', {
        'infra/docker/api.Dockerfile': nodeImage('node:24-alpine'),
        'infra/docker/mcp.Dockerfile': nodeImage('node:26.10.0-alpine3.22'),
        'infra/docker/worker.Dockerfile': nodeImage(`node:26-alpine@sha256:${'a'.repeat(64)}`),
      }),
      { today: '2026-11-25' },
    );
    expect(problems).toEqual([]);
  });

  it('reads the release schedule on the day it runs', async () => {
    const { problems } = await checkInfra(ROOT, { today: '2026-06-01' });
    expect(problems.join('\n')).toMatch(/Node.js 26 is not LTS until 2026-10-28/);
  });
});

describe('node-versions', () => {
  it('lists a release schedule for every line CI tests, in order', () => {
    for (const major of CI_NODE_VERSIONS) {
      const r = NODE_RELEASES[major];
      expect(r, `Node.js ${major}`).toBeDefined();
      expect(r!.lts < r!.maintenance && r!.maintenance < r!.end).toBe(true);
    }
    expect(imageNodeProblem(24, '2026-11-25')).toBeUndefined();
    expect(imageNodeProblem(26, '2026-11-25')).toBeUndefined();
    expect(imageNodeProblem(24, '2028-04-30')).toMatch(/Node.js 24 reached its end of life on 2028-04-30/);
    expect(imageNodeProblem(26, '2029-04-30')).toMatch(/Node.js 26 reached its end of life on 2029-04-30/);
  });
});
