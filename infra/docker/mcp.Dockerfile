# syntax=docker/dockerfile:1
# mcp: MCP gateway (Streamable HTTP on /mcp).
# Build from the repository root:  docker build -f infra/docker/mcp.Dockerfile -t task-tracker/mcp:1.0.0 .
# Node.js 26, Active LTS since 2026-10-28 (end of life 2029-04-30); scripts/node-versions.mjs lists the lines
# scripts/infra-check.mjs accepts (in LTS, not past end of life, tested by .ci/run): 24 or 26.
ARG NODE_IMAGE=node:26-alpine

# ---- build: install from the lockfile, bundle with tsup, then `pnpm deploy` a pruned production tree
FROM ${NODE_IMAGE} AS build
ENV PNPM_HOME=/pnpm CI=true
ENV PATH=$PNPM_HOME:$PATH
RUN npm install -g pnpm@12.21.0 && pnpm config set store-dir /pnpm/store
WORKDIR /repo
# The lockfile alone decides the download layer, so it stays cached until dependencies change.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile --filter "@tt/mcp..." \
 && pnpm --filter @tt/mcp run build \
 && pnpm --filter @tt/mcp deploy --prod --offline /out

# ---- runtime: built bundle + production dependencies only, as the unprivileged `node` user
FROM ${NODE_IMAGE} AS runtime
# npm and yarn are not needed to run the bundle; dropping them makes the image smaller.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn* /usr/local/bin/yarn /usr/local/bin/yarnpkg
ENV NODE_ENV=production HOST=0.0.0.0 MCP_PORT=3001
WORKDIR /app
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
# Files stay owned by root and read-only for the app user.
USER node
EXPOSE 3001
# Liveness; orchestrators use /ready for readiness (see infra/compose.yaml and infra/k8s).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.MCP_PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "--max-semi-space-size=8", "--min-semi-space-size=8", "dist/main.js"]
