#!/usr/bin/env node
// Checks infra/ without Docker or a cluster (neither runs on CI machines), with the tools that do run here:
//   Dockerfiles  dockerfile-utils (the Dockerfile language server's linter) + our rules on the parsed file
//                (the base image: node:<major>-alpine on a line scripts/node-versions.mjs allows)
//   compose      dclint (compose-spec JSON schema + best-practice rules, zero warnings) + topology rules
//   Kubernetes   kubernetes-models (the Kubernetes OpenAPI schemas per kind) + probe/resource/reference rules
// nginx has no validator here (the Debian nginx is older than the image's and rejects `resolve`); its
// upstream is checked against the compose service instead. Exit 1 on any problem.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DockerfileParser } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import YAML from 'yaml';
import { imageNodeProblem } from './node-versions.mjs';
import { nodeFlagsFor, SERVICE_NODE_FLAGS } from './service-node-flags.mjs';

// The tools come from this repository's node_modules, whatever tree is checked.
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const APPS = ['api', 'mcp', 'worker'];
/** The variable that sets each app's port in compose (its /metrics is there too). */
const PORT_VARIABLE = { api: 'PORT', mcp: 'MCP_PORT', worker: 'WORKER_PORT' };
/**
 * What each app may take from SIGTERM to its exit besides the drain delay: api and mcp serve SHUTDOWN_DRAIN_MS (default
 * 5 s) more, then have SHUTDOWN_AFTER_DRAIN_MS (packages/http/src/lifecycle.ts, 20 s) for requests in flight and
 * closing before a forced exit; the worker, which does not drain, has 60 s for its jobs in hand
 * (apps/worker/src/main.ts). The grace period (terminationGracePeriodSeconds, stop_grace_period) must exceed the sum,
 * or the orchestrator kills a process that is still finishing requests.
 */
const SHUTDOWN_BUDGET_S = { api: 20, mcp: 20, worker: 60 };
const DRAINS = { api: true, mcp: true, worker: false };
const DEFAULT_DRAIN_MS = 5000;
/** SHUTDOWN_DRAIN_MS as set (a number, or compose's `${VAR:-default}`), in seconds; unset = the default. */
const drainSeconds = (value) => {
  if (value === undefined || value === null) return DEFAULT_DRAIN_MS / 1000;
  const m = /^\$\{\w+:-(\d+)\}$/.exec(String(value)) ?? /^(\d+)$/.exec(String(value));
  return m ? Number(m[1]) / 1000 : NaN;
};
/** A compose duration (`30s`, `1m30s`, `500ms`) in seconds; compose's default is 10 s. */
const durationSeconds = (value) => {
  if (value === undefined) return 10;
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(String(value));
  if (!m || !String(value)) return NaN;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) + Number(m[4] ?? 0) / 1000;
};
const graceProblem = (app, grace, drain, preStop = 0) => {
  const needed = preStop + (DRAINS[app] ? drain : 0) + SHUTDOWN_BUDGET_S[app];
  if (!Number.isFinite(grace) || !Number.isFinite(needed)) return `${app}: cannot read its grace period or SHUTDOWN_DRAIN_MS`;
  if (grace <= needed) {
    const parts = [preStop ? `preStop ${preStop} s` : '', DRAINS[app] ? `SHUTDOWN_DRAIN_MS ${drain} s` : '', `shutdown ${SHUTDOWN_BUDGET_S[app]} s`].filter(Boolean);
    return `${app}: grace period ${grace} s must exceed ${parts.join(' + ')} = ${needed} s`;
  }
  return undefined;
};

let ROOT = HERE;
let INFRA = path.join(ROOT, 'infra');
let problems = [];
let checked = new Set();
let TODAY = new Date().toISOString().slice(0, 10);
const rel = (f) => path.relative(ROOT, f);
const problem = (file, msg) => problems.push(`${rel(file)}: ${msg}`);
const read = (f) => {
  checked.add(rel(f));
  return readFileSync(f, 'utf8');
};

// ---- Dockerfiles
/** The official node image on Alpine, by major version (node:26-alpine, node:26.1.0-alpine3.22, ...@sha256:...). */
const NODE_IMAGE = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)(?:\.\d+){0,2}-alpine[\d.]*(?:@sha256:[0-9a-f]{64})?$/;
/** Why `image` is not a base image the apps may build and run on (scripts/node-versions.mjs), or undefined. */
function nodeImageProblem(image) {
  const m = NODE_IMAGE.exec(image);
  if (!m) return `"${image}" is not the official node image on Alpine (node:<major>-alpine)`;
  return imageNodeProblem(Number(m[1]), TODAY);
}

function checkDockerfile(app) {
  const file = path.join(INFRA, 'docker', `${app}.Dockerfile`);
  if (!existsSync(file)) return problem(file, 'missing');
  const text = read(file);
  for (const d of lintDockerfile(text)) problem(file, `line ${d.range.start.line + 1}: ${d.message}`);
  const df = DockerfileParser.parse(text);
  const froms = df.getFROMs();
  if (froms.length < 2) problem(file, 'must be multi-stage (a build stage and a runtime stage)');
  const args = Object.fromEntries(df.getInitialARGs().map((a) => [a.getProperty()?.getName(), a.getProperty()?.getValue()]));
  const images = new Set();
  for (const from of froms) {
    const image = (from.getImage() ?? '').replace(/^\$\{?(\w+)\}?$/, (_m, v) => args[v] ?? '');
    images.add(image);
    if (!/:[\w.-]+$/.test(image) || /:latest$/.test(image)) problem(file, `FROM ${from.getImage()}: pin a tag (resolved to "${image}")`);
    else {
      const why = nodeImageProblem(image);
      if (why) problem(file, `FROM ${from.getImage()}: ${why}`);
    }
  }
  if (images.size > 1) problem(file, `the build and runtime stages must use the same node image (${[...images].join(', ')})`);
  const last = froms.at(-1);
  const runtime = df.getInstructions().filter((i) => last && i.getRange().start.line > last.getRange().start.line);
  const user = runtime.filter((i) => i.getKeyword() === 'USER').at(-1);
  if (!user || /^(root|0)(:|$)/.test(user.getArguments()[0]?.getValue() ?? '')) problem(file, 'the runtime stage must switch to a non-root USER');
  const health = runtime.find((i) => i.getKeyword() === 'HEALTHCHECK');
  if (!health || !health.getTextContent().includes('/health')) problem(file, 'the runtime stage needs a HEALTHCHECK on /health');
  const cmd = runtime.find((i) => i.getKeyword() === 'CMD');
  if (!cmd || !cmd.getTextContent().trim().match(/^CMD\s+\[/)) problem(file, 'CMD must use the exec (JSON) form, so the app gets SIGTERM');
  else if (!cmd.getTextContent().includes('dist/main.js')) problem(file, 'CMD must run the built dist/main.js');
  else {
    let argv = [];
    try {
      argv = JSON.parse(cmd.getTextContent().trim().replace(/^CMD\s+/, ''));
    } catch {
      problem(file, 'CMD is not a JSON array');
    }
    for (const flag of nodeFlagsFor(app)) if (!argv.includes(flag)) problem(file, `CMD must pass ${flag} to node (scripts/service-node-flags.mjs)`);
  }
  if (!text.includes(`--filter "@tt/${app}..."`) || !text.includes('--frozen-lockfile')) problem(file, `must install @tt/${app} from the frozen lockfile`);
  if (!text.includes(`deploy --prod`)) problem(file, 'the runtime stage must get a pruned production tree (pnpm deploy --prod)');
  for (const copy of df.getCOPYs()) {
    if (copy.getFromFlag()) continue;
    const srcs = copy.getArguments().slice(0, -1).map((a) => a.getValue());
    for (const s of srcs) if (s !== '.' && !existsSync(path.join(ROOT, s))) problem(file, `COPY source ${s} does not exist in the repository`);
  }
  const ignore = `${file}.dockerignore`;
  if (!existsSync(ignore) || !/node_modules/.test(read(ignore))) problem(file, `needs ${path.basename(ignore)} excluding node_modules`);
  const pkg = JSON.parse(read(path.join(ROOT, 'apps', app, 'package.json')));
  if (pkg.name !== `@tt/${app}`) problem(file, `apps/${app} is ${pkg.name}, not @tt/${app}`);
  if (!/main:\s*['"]src\/main\.ts['"]/.test(read(path.join(ROOT, 'apps', app, 'tsup.config.ts')))) problem(file, `apps/${app}/tsup.config.ts does not build dist/main.js`);
  if (app === 'api' && !/migrate:\s*['"]src\/migrate\.ts['"]/.test(read(path.join(ROOT, 'apps/api/tsup.config.ts')))) {
    problem(file, 'apps/api/tsup.config.ts must build dist/migrate.js (the migration job runs it)');
  }
}

// ---- compose
function checkCompose() {
  const file = path.join(INFRA, 'compose.yaml');
  const bin = path.join(HERE, 'node_modules', '.bin', 'dclint');
  const lint = spawnSync(bin, ['--max-warnings', '0', '--color', 'false', file], { encoding: 'utf8' });
  if (lint.status !== 0) problem(file, `dclint:\n${(lint.stdout + lint.stderr).trim()}`);
  const doc = YAML.parse(read(file), { merge: true });
  const s = doc?.services ?? {};
  for (const name of ['postgres', 'redis', 'migrate', 'api', 'proxy', 'mcp', 'worker']) if (!s[name]) problem(file, `service ${name} is missing`);
  if ((s.api?.deploy?.replicas ?? 1) < 2) problem(file, 'api needs 2 replicas or more');
  if (s.migrate?.restart !== 'no' || !String(s.migrate?.command).includes('dist/migrate.js')) problem(file, 'migrate must be a one-shot job running dist/migrate.js');
  for (const app of APPS) {
    const svc = s[app] ?? {};
    if (svc.depends_on?.migrate?.condition !== 'service_completed_successfully') problem(file, `${app} must start after migrate completed`);
    if (!JSON.stringify(svc.healthcheck?.test ?? '').includes('/ready')) problem(file, `${app} needs a healthcheck on /ready`);
    if (app !== 'worker' && svc.environment?.MIGRATE_ON_START !== 'false') problem(file, `${app} must not migrate on start`);
    const port = svc.environment?.[PORT_VARIABLE[app]];
    const scrape = svc.labels ?? {};
    if (scrape['prometheus.io/scrape'] !== 'true' || scrape['prometheus.io/path'] !== '/metrics' || !port || scrape['prometheus.io/port'] !== port) {
      problem(file, `${app} needs labels prometheus.io/scrape "true", prometheus.io/path /metrics and prometheus.io/port ${port ?? '(its port)'}`);
    }
    const grace = graceProblem(app, durationSeconds(svc.stop_grace_period), drainSeconds(svc.environment?.SHUTDOWN_DRAIN_MS));
    if (grace) problem(file, `${grace} (stop_grace_period)`);
    const df = svc.build?.dockerfile && path.resolve(INFRA, svc.build.context ?? '.', svc.build.dockerfile);
    if (!df || !existsSync(df)) problem(file, `${app} build.dockerfile does not exist`);
    const nodeImage = svc.build?.args?.NODE_IMAGE;
    if (nodeImage !== undefined) {
      const why = nodeImageProblem(String(nodeImage));
      if (why) problem(file, `${app} build.args.NODE_IMAGE: ${why}`);
    }
  }
  for (const v of s.proxy?.volumes ?? []) {
    const src = String(v).split(':')[0];
    if (src.startsWith('.') && !existsSync(path.resolve(INFRA, src))) problem(file, `proxy volume ${src} does not exist`);
  }
  if ((s.mcp?.deploy?.replicas ?? 1) < 2) problem(file, 'mcp needs 2 replicas or more (a deploy restarts one at a time)');
  for (const [app, port] of [['api', 3000], ['mcp', 3001]]) {
    const nginx = path.join(INFRA, 'nginx', `${app}.conf`);
    if (!existsSync(nginx)) {
      problem(nginx, 'missing');
      continue;
    }
    if (!new RegExp(`server\\s+${app}:${port}\\b`).test(read(nginx))) problem(nginx, `the upstream must point at the compose service ${app}:${port}`);
    if (!/location\s*=\s*\/metrics\s*\{\s*return\s+404;/.test(read(nginx))) problem(nginx, 'the public proxy must refuse /metrics (location = /metrics { return 404; })');
    if (s[app]?.ports?.length) problem(file, `${app} must be reached through the proxy, not a published port of its own`);
  }
}

// ---- Kubernetes
async function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const specifier = `kubernetes-models/${group ? `${group}/` : ''}${version}`;
  const mod = await import(/* @vite-ignore */ specifier).catch(() => undefined);
  return mod?.[kind];
}

async function checkKubernetes() {
  const dir = path.join(INFRA, 'k8s');
  const kustomization = YAML.parse(read(path.join(dir, 'kustomization.yaml')));
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  for (const f of files) if (!kustomization.resources?.includes(f)) problem(path.join(dir, f), 'not listed in kustomization.yaml');
  for (const r of kustomization.resources ?? []) if (!files.includes(r)) problem(path.join(dir, 'kustomization.yaml'), `resource ${r} does not exist`);

  const objects = [];
  for (const f of files) {
    const file = path.join(dir, f);
    for (const d of YAML.parseAllDocuments(read(file))) {
      if (d.errors.length) problem(file, d.errors.map((e) => e.message).join('; '));
      const obj = d.toJS();
      if (!obj) continue;
      const Model = await modelFor(obj.apiVersion, obj.kind);
      if (!Model) problem(file, `unknown kind ${obj.apiVersion} ${obj.kind}`);
      else {
        try {
          new Model(obj).validate();
        } catch (err) {
          problem(file, `${obj.kind} ${obj.metadata?.name}: ${err.message}`);
        }
      }
      objects.push({ file, obj });
    }
  }
  const byKind = (k) => objects.filter((o) => o.obj.kind === k);
  const names = (k) => new Set(byKind(k).map((o) => o.obj.metadata?.name));
  const configMaps = names('ConfigMap');
  const secrets = names('Secret');
  const deployments = byKind('Deployment');
  const images = new Set((kustomization.images ?? []).map((i) => i.name));

  const checkContainers = (file, owner, spec, probes) => {
    if (!spec?.securityContext?.runAsNonRoot) problem(file, `${owner}: pod must set securityContext.runAsNonRoot`);
    for (const c of spec?.containers ?? []) {
      const where = `${owner}/${c.name}`;
      if (!c.resources?.requests || !c.resources?.limits) problem(file, `${where}: set resources.requests and resources.limits`);
      if (c.securityContext?.allowPrivilegeEscalation !== false) problem(file, `${where}: set allowPrivilegeEscalation: false`);
      if (!images.has(String(c.image).split(':')[0])) problem(file, `${where}: image ${c.image} is not managed in kustomization images`);
      for (const e of c.envFrom ?? []) {
        if (e.configMapRef && !configMaps.has(e.configMapRef.name)) problem(file, `${where}: ConfigMap ${e.configMapRef.name} does not exist`);
        if (e.secretRef && !secrets.has(e.secretRef.name)) problem(file, `${where}: Secret ${e.secretRef.name} does not exist`);
      }
      if (!probes) continue;
      const ports = new Set((c.ports ?? []).map((p) => p.name));
      for (const [probe, p] of [['livenessProbe', '/health'], ['readinessProbe', '/ready']]) {
        const get = c[probe]?.httpGet;
        if (get?.path !== p) problem(file, `${where}: ${probe} must GET ${p}`);
        else if (typeof get.port === 'string' && !ports.has(get.port)) problem(file, `${where}: ${probe} port ${get.port} is not a named container port`);
      }
    }
  };
  for (const { file, obj } of deployments) checkContainers(file, `Deployment ${obj.metadata.name}`, obj.spec?.template?.spec, true);
  for (const app of APPS) if (!deployments.some((d) => d.obj.metadata.name === `task-tracker-${app}`)) problem(dir, `no Deployment task-tracker-${app}`);
  // Prometheus' kubernetes-pods discovery: every app's pods say where their /metrics is.
  for (const { file, obj } of deployments) {
    const a = obj.spec?.template?.metadata?.annotations ?? {};
    const ports = (obj.spec?.template?.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => String(p.containerPort)));
    if (a['prometheus.io/scrape'] !== 'true' || a['prometheus.io/path'] !== '/metrics' || !ports.includes(a['prometheus.io/port'])) {
      problem(file, `Deployment ${obj.metadata.name}: pod annotations prometheus.io/scrape "true", prometheus.io/path /metrics and prometheus.io/port (a container port)`);
    }
  }

  // Grace periods: the drain delay (ConfigMap or container env) plus the shutdown budget, plus any preStop sleep.
  for (const app of APPS) {
    const d = deployments.find((x) => x.obj.metadata.name === `task-tracker-${app}`);
    const spec = d?.obj.spec?.template?.spec;
    const c = spec?.containers?.[0];
    if (!d || !c) continue;
    const fromMaps = (c.envFrom ?? []).map((e) => byKind('ConfigMap').find((m) => m.obj.metadata?.name === e.configMapRef?.name)?.obj.data?.SHUTDOWN_DRAIN_MS);
    const drain = c.env?.find((e) => e.name === 'SHUTDOWN_DRAIN_MS')?.value ?? fromMaps.find((v) => v !== undefined);
    const sleep = c.lifecycle?.preStop?.exec?.command;
    const preStop = Array.isArray(sleep) && sleep[0] === 'sleep' ? Number(sleep[1]) : 0;
    const grace = graceProblem(app, spec.terminationGracePeriodSeconds ?? 30, drainSeconds(drain), preStop);
    if (grace) problem(d.file, `Deployment ${d.obj.metadata.name}: ${grace} (terminationGracePeriodSeconds)`);
  }

  const jobs = byKind('Job');
  for (const { file, obj } of jobs) checkContainers(file, `Job ${obj.metadata.name}`, obj.spec?.template?.spec, false);
  if (!jobs.some((j) => JSON.stringify(j.obj.spec?.template?.spec?.containers).includes('dist/migrate.js'))) problem(dir, 'no migration Job running dist/migrate.js');

  for (const { file, obj } of byKind('Service')) {
    const sel = obj.spec?.selector ?? {};
    const target = deployments.find((d) => Object.entries(sel).every(([k, v]) => d.obj.spec?.template?.metadata?.labels?.[k] === v));
    if (!target) problem(file, `Service ${obj.metadata.name} selects no Deployment`);
    const ports = new Set((target?.obj.spec.template.spec.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.name)));
    for (const p of obj.spec?.ports ?? []) if (typeof p.targetPort === 'string' && !ports.has(p.targetPort)) problem(file, `Service ${obj.metadata.name}: targetPort ${p.targetPort} is not a container port`);
  }
  const hpas = byKind('HorizontalPodAutoscaler');
  for (const { file, obj } of hpas) {
    if (!deployments.some((d) => d.obj.metadata.name === obj.spec?.scaleTargetRef?.name)) problem(file, `HPA ${obj.metadata.name} targets no Deployment`);
  }
  if (!hpas.some((h) => h.obj.spec?.scaleTargetRef?.name === 'task-tracker-api')) problem(dir, 'no HorizontalPodAutoscaler for the api');
  for (const { file, obj } of byKind('Ingress')) {
    const svcs = names('Service');
    for (const rule of obj.spec?.rules ?? []) for (const p of rule.http?.paths ?? []) if (!svcs.has(p.backend?.service?.name)) problem(file, `Ingress backend ${p.backend?.service?.name} is not a Service`);
    for (const rule of obj.spec?.rules ?? []) {
      for (const p of rule.http?.paths ?? []) {
        if (p.path === '/' && p.pathType !== 'Exact') problem(file, `Ingress ${rule.host}: a ${p.pathType} path / would publish /metrics; list the public paths`);
      }
    }
  }
  for (const { file, obj } of byKind('ConfigMap')) if (obj.data?.MIGRATE_ON_START !== 'false') problem(file, 'MIGRATE_ON_START must be "false" (the Job migrates)');
}

/** `npm start` (the root package.json's "serve") starts the embedded service with the same V8 flags as the images. */
function checkServe() {
  const file = path.join(ROOT, 'package.json');
  const serve = String(JSON.parse(read(file)).scripts?.serve ?? '').split(/\s+/);
  for (const flag of SERVICE_NODE_FLAGS) if (!serve.includes(flag)) problem(file, `scripts.serve must pass ${flag} to node (scripts/service-node-flags.mjs)`);
}

/**
 * Checks infra/ of the repository at `root`; resolves {files, problems}. `today` (YYYY-MM-DD, default: today)
 * is the date the Node.js release schedule is read at.
 */
export async function checkInfra(root = HERE, { today = new Date().toISOString().slice(0, 10) } = {}) {
  ROOT = root;
  TODAY = today;
  INFRA = path.join(root, 'infra');
  problems = [];
  checked = new Set();
  for (const app of APPS) checkDockerfile(app);
  checkServe();
  checkCompose();
  await checkKubernetes();
  return { files: [...checked], problems: [...problems] };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await checkInfra();
  console.log(`infra-check: ${result.files.length} files checked`);
  for (const p of result.problems) console.log(`  problem: ${p}`);
  if (result.problems.length) {
    console.log(`infra-check: ${result.problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('infra-check: no problems (dockerfile-utils, dclint, kubernetes-models schemas and the topology rules)');
}
