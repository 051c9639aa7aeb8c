import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';

/**
 * The swagger-ui-dist package directory, resolved from this module at run time: the same call finds it next to the
 * sources, next to the tsup bundle (apps/api/dist) and in the container's pruned node_modules.
 */
export function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The files of the package the page loads, and nothing else of it (no source maps, READMEs or package.json). */
const ASSETS = ['swagger-ui.css', 'index.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'] as const;

/**
 * Only this host: scripts, styles, fonts and API calls ("Try it out") stay here. Images also allow data: URIs because
 * swagger-ui's stylesheet draws its icons with inline SVG; a data: URI is never a request.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

// No inline script: the CSP allows only files from this host, so the page's setup is a file too.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Task Tracker API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: swagger-ui would otherwise fetch a validity badge from validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  persistAuthorization: false,
});
`;

const LINKS = {
  docs: '/docs',
  openapi: '/v1/openapi.json',
  health: '/health',
  ready: '/ready',
  rest: '/v1',
  operator: '/admin/v1',
};

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Task Tracker API</title></head>
<body>
  <h1>Task Tracker API</h1>
  <ul>
    <li><a href="/docs">API reference</a> (interactive)</li>
    <li><a href="/v1/openapi.json">OpenAPI document</a> (OpenAPI 3.1)</li>
    <li><a href="/health">Health</a> and <a href="/ready">readiness</a></li>
  </ul>
  <p>REST base: <code>/v1</code>; operator API: <code>/admin/v1</code>. Send keys as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
</body>
</html>
`;

/**
 * GET / (JSON, or HTML for browsers, pointing to the reference, the OpenAPI document and /health) and GET /docs,
 * the interactive reference of /v1/openapi.json with every asset served from the installed swagger-ui-dist.
 */
export function docsPages(dir: string = swaggerUiDir()): Router {
  const router = express.Router({ strict: true });
  const csp: express.RequestHandler = (_req, res, next) => {
    res.setHeader('content-security-policy', DOCS_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    next();
  };
  router.get('/', csp, (_req, res) => {
    res.format({
      'application/json': () => void res.json({ name: 'Task Tracker API', links: LINKS }),
      'text/html': () => void res.type('html').send(INDEX_HTML),
      default: () => void res.json({ name: 'Task Tracker API', links: LINKS }),
    });
  });
  router.get(['/docs', '/docs/'], csp, (_req, res) => void res.type('html').send(PAGE));
  router.get('/docs/init.js', csp, (_req, res) => void res.type('text/javascript').send(INIT));
  for (const name of ASSETS) {
    // An hour of caching: the names do not change between package versions, so keep it short. `root` keeps send's
    // dotfile rule off the package's own path (pnpm installs under node_modules/.pnpm).
    router.get(`/docs/${name}`, csp, (_req, res, next) => res.sendFile(name, { root: dir, maxAge: 3_600_000 }, (err) => err && next(err)));
  }
  return router;
}
