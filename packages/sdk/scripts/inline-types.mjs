// Post-build step: makes dist/index.d.ts and dist/index.d.cts self-contained.
//
// The SDK's types come from the zod schemas of @tt/domain (src/types.ts imports them as types only).
// tsup's declaration bundle keeps those imports, which a consumer of the built package could not
// resolve. This script asks the TypeScript checker for the structural form of every alias that
// mentions a domain type, writes it in place of the alias body, drops the domain import, and then
// checks that each file compiles alone and that the JavaScript loads neither the domain nor zod.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const DOMAIN = '@tt/domain';
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
};
const LOADS_DOMAIN = /(from\s*|require\(\s*|import\(\s*)['"](@tt\/domain|zod)(\/[^'"]*)?['"]/;
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias;

const fail = (file, message) => {
  console.error(`inline-types: ${file}: ${message}`);
  process.exit(1);
};

function inline(file) {
  const program = ts.createProgram([file], { ...options, types: ['node'] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const domainImports = source.statements.filter(
    (s) => (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === DOMAIN,
  );
  if (domainImports.some((s) => ts.isExportDeclaration(s))) fail(file, `re-exports from ${DOMAIN}; declare an alias in src/types.ts instead`);
  const imported = new Set(domainImports.flatMap((s) => declaredSymbols(checker, s)));

  const mentionsDomain = (node) => {
    let found = false;
    const visit = (n) => {
      if (found) return;
      if (ts.isIdentifier(n) && imported.has(checker.getSymbolAtLocation(n))) found = true;
      else ts.forEachChild(n, visit);
    };
    visit(node);
    return found;
  };

  const edits = [];
  for (const statement of source.statements) {
    if (domainImports.includes(statement)) {
      edits.push({ start: statement.getFullStart(), end: statement.getEnd(), text: '' });
      continue;
    }
    if (!mentionsDomain(statement)) continue;
    if (!ts.isTypeAliasDeclaration(statement) || statement.typeParameters) {
      fail(file, `only concrete type aliases may use ${DOMAIN} types:\n${statement.getText(source)}`);
    }
    const expanded = checker.typeToString(checker.getTypeAtLocation(statement.name), statement, FLAGS);
    if (expanded.includes('import(') || expanded === 'any') fail(file, `cannot expand ${statement.name.text}: ${expanded}`);
    edits.push({ start: statement.type.getStart(source), end: statement.type.getEnd(), text: pretty(expanded) });
  }
  let text = source.getFullText();
  for (const e of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  writeFileSync(file, text);
  return edits.length;
}

/** Lays a one-line type out over several lines, as tsc would. */
function pretty(typeText) {
  const source = ts.createSourceFile('type.ts', `type T = ${typeText};`, ts.ScriptTarget.ES2022, false);
  return ts.createPrinter({ newLine: ts.NewLineKind.LineFeed }).printNode(ts.EmitHint.Unspecified, source.statements[0].type, source);
}

function declaredSymbols(checker, declaration) {
  const clause = declaration.importClause;
  if (!clause) return [];
  const names = [];
  if (clause.name) names.push(clause.name);
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name);
  if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => e.name));
  return names.map((n) => checker.getSymbolAtLocation(n));
}

/** The rewritten declarations must compile with nothing but the standard library. */
function verifyStandalone(file) {
  const text = readFileSync(file, 'utf8');
  if (LOADS_DOMAIN.test(text)) fail(file, `still imports ${DOMAIN} or zod`);
  const program = ts.createProgram([file], { ...options, noResolve: true });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) {
    fail(file, ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dist, getNewLine: () => '\n' }));
  }
}

for (const name of ['index.d.ts', 'index.d.cts']) {
  const file = join(dist, name);
  const count = inline(file);
  verifyStandalone(file);
  console.log(`inline-types: ${name}: ${count} edits, compiles standalone`);
}
for (const name of ['index.js', 'index.cjs']) {
  const code = readFileSync(join(dist, name), 'utf8');
  if (LOADS_DOMAIN.test(code)) fail(name, 'runtime code loads @tt/domain or zod');
}
