// undici's start-up, made to load only what a run uses, at build time (scripts/build.mjs uses both plugins):
// - Its package entry (index.js) requires everything at once: its dispatchers, but also fetch, WebSocket, the caches,
//   the mocks, and with them zlib, worker_threads, perf_hooks and dns. It is rewritten so that each export is loaded
//   when it is first read (lazyEntryPlugin): forgectl reads Agent and EnvHttpProxyAgent, and a run loads their code
//   only. The export names stay the package's own, so forgectl's source imports the package entry as it is. The
//   rewrite reads the entry's shape; whatever it does not recognise keeps the entry as it is (the build then warns),
//   and an export it cannot prove independent is read from the untouched entry, loaded then in full.
// - Its HTTP/2 client requires node:http2 (and tls and crypto with it) as it loads: a stand-in loads it on first use
//   (lazyHttp2).
// - Its files require node:assert (and Node's deep comparisons with it) as they load, to call assert(value) on
//   conditions that hold: a stand-in loads node:assert only when one does not (lazyAssert).
// test/http/lazy-undici.test.ts holds the rewritten entry to the package's export names, values and a real request,
// the rewrite to its fallbacks, and the stand-ins to node:http2's own values and node:assert's own failures.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import ts from 'typescript';

/** The specifier under which the rewritten entry requires the untouched one (resolved by the plugin below). */
const ORIGINAL = 'forgectl-lazy-entry:original';

/**
 * How the entry's source can load lazily, or why it cannot: `{ exports, patches }`, where each export (in the order
 * the entry assigns them) is `{ name, from: { path, prop? } }` when it is its own module (or a property of one) that
 * no other statement touches, or `{ name }` when it must come from the untouched entry; each patch is
 * `Object.assign(A.prototype, B)` of two such modules, run before any lazily loaded export is handed out (every
 * dispatcher inherits the methods undici's entry adds to Dispatcher.prototype this way). `{ reason }` when a
 * statement is of a kind not recognised: the entry is then used as it is.
 */
export function analyseEntry(source) {
  const file = ts.createSourceFile('index.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  /** Locals bound to a module or to one of its properties: `const A = require('p')`, `const { A } = require('p')`. */
  const modules = new Map();
  const exports = new Map();
  const patches = [];
  /** Every identifier each statement mentions, to find the locals that are used by more than their export. */
  const mentions = [];
  const unrecognised = (node, why) => ({ reason: `${why}: ${node.getText(file).split('\n')[0].slice(0, 100)}` });

  for (const statement of file.statements) {
    if (ts.isExpressionStatement(statement) && ts.isStringLiteral(statement.expression)) continue; // 'use strict'
    if (ts.isFunctionDeclaration(statement)) {
      mentions.push({ statement, names: identifiers(statement) });
      continue;
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const bound = requireOf(declaration.initializer);
        if (bound && ts.isIdentifier(declaration.name)) {
          modules.set(declaration.name.text, bound);
        } else if (bound && !bound.prop && ts.isObjectBindingPattern(declaration.name) && declaration.name.elements.every((e) => ts.isIdentifier(e.name) && !e.dotDotDotToken && (!e.propertyName || ts.isIdentifier(e.propertyName)))) {
          for (const element of declaration.name.elements) modules.set(element.name.text, { path: bound.path, prop: (element.propertyName ?? element.name).text });
        } else if (declaration.initializer && hasCall(declaration.initializer)) {
          return unrecognised(statement, 'a binding computed by a call');
        } else {
          mentions.push({ statement, names: identifiers(declaration) });
        }
      }
      continue;
    }
    if (!ts.isExpressionStatement(statement)) return unrecognised(statement, `a statement of kind ${ts.SyntaxKind[statement.kind]}`);
    const expression = statement.expression;
    const assigned = ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.EqualsToken ? exportTarget(expression.left) : undefined;
    if (assigned) {
      const value = expression.right;
      const known = exports.get(assigned.name);
      if (!assigned.nested && ts.isIdentifier(value) && (!known || known.local === value.text)) {
        exports.set(assigned.name, { name: assigned.name, local: value.text });
      } else {
        exports.set(assigned.name, { name: assigned.name });
        mentions.push({ statement, names: identifiers(value) });
      }
      continue;
    }
    const patch = prototypePatch(expression);
    if (patch) {
      patches.push(patch);
      continue;
    }
    return unrecognised(statement, 'a statement with effects');
  }
  if (!exports.size) return { reason: 'no module.exports.NAME = … assignments' };
  for (const patch of patches) {
    if (!modules.has(patch.target) || !modules.has(patch.source)) return { reason: `a prototype patch of locals not bound to modules (${patch.target}, ${patch.source})` };
  }
  const usedElsewhere = new Set(mentions.flatMap((m) => [...m.names]));
  const result = [...exports.values()].map(({ name, local }) =>
    local !== undefined && modules.has(local) && !usedElsewhere.has(local) ? { name, from: modules.get(local) } : { name },
  );
  if (!result.some((e) => e.from)) return { reason: 'no export is a module of its own' };
  return { exports: result, patches: patches.map((p) => ({ target: modules.get(p.target), source: modules.get(p.source) })) };
}

/** `require('literal')` or `require('literal').prop`: `{ path, prop? }`. */
function requireOf(node) {
  if (!node) return undefined;
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name)) {
    const inner = requireOf(node.expression);
    return inner && !inner.prop ? { path: inner.path, prop: node.name.text } : undefined;
  }
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
    return { path: node.arguments[0].text };
  }
  return undefined;
}

/** `module.exports.NAME` (or `module.exports.NAME.more`, nested): the export's name. */
function exportTarget(node) {
  let nested = false;
  while (ts.isPropertyAccessExpression(node)) {
    const object = node.expression;
    if (ts.isPropertyAccessExpression(object) && ts.isIdentifier(object.expression) && object.expression.text === 'module' && object.name.text === 'exports') {
      return { name: node.name.text, nested };
    }
    nested = true;
    node = object;
  }
  return undefined;
}

/** `Object.assign(A.prototype, B)`: `{ target: 'A', source: 'B' }`. */
function prototypePatch(node) {
  if (!ts.isCallExpression(node) || node.arguments.length !== 2) return undefined;
  const callee = node.expression;
  const [target, source] = node.arguments;
  const isAssign = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'Object' && callee.name.text === 'assign';
  if (!isAssign || !ts.isPropertyAccessExpression(target) || !ts.isIdentifier(target.expression) || target.name.text !== 'prototype' || !ts.isIdentifier(source)) return undefined;
  return { target: target.expression.text, source: source.text };
}

function hasCall(node) {
  if ((ts.isCallExpression(node) && !requireOf(node)) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) return true;
  return Boolean(ts.forEachChild(node, (child) => (hasCall(child) ? true : undefined)));
}

function identifiers(node) {
  const names = new Set();
  const visit = (child) => {
    if (ts.isIdentifier(child)) names.add(child.text);
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

/** The rewritten entry: a getter per export, the modules required on first read, the rest from the untouched entry. */
export function lazyEntry({ exports, patches }) {
  const load = ({ path, prop }) => `require(${JSON.stringify(path)})${prop ? `[${JSON.stringify(prop)}]` : ''}`;
  const lines = [
    "'use strict';",
    '// Rewritten by forgectl\'s build (scripts/lazy-undici.mjs): each export is loaded when first read.',
    'let untouched;',
    `const original = () => (untouched ??= require(${JSON.stringify(ORIGINAL)}));`,
    'let patched = false;',
    'const patch = () => {',
    '  if (patched) return;',
    '  patched = true;',
    ...patches.map(({ target, source }) => `  Object.assign(${load(target)}.prototype, ${load(source)});`),
    '};',
    'const define = (name, get) => Object.defineProperty(module.exports, name, {',
    '  enumerable: true,',
    '  configurable: true,',
    '  get,',
    '  set(value) {',
    '    Object.defineProperty(module.exports, name, { value, writable: true, enumerable: true, configurable: true });',
    '  },',
    '});',
  ];
  for (const { name, from } of exports) {
    lines.push(from ? `define(${JSON.stringify(name)}, () => (patch(), ${load(from)}));` : `define(${JSON.stringify(name)}, () => original()[${JSON.stringify(name)}]);`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The esbuild plugin: the package entry of `pkg` (a CommonJS file named by `entry`, a regular expression of its path)
 * is replaced by its lazy rewrite; the rewrite's own require of the untouched entry gets the file as it is. A shape
 * not recognised leaves the entry as it is, with a warning.
 */
export function lazyEntryPlugin(pkg, entry) {
  return {
    name: `lazy-entry-${pkg}`,
    setup(build) {
      let entryPath;
      build.onResolve({ filter: new RegExp(`^${ORIGINAL}$`) }, () => ({ path: entryPath, namespace: 'lazy-entry-original' }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-entry-original' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), resolveDir: dirname(args.path), loader: 'js' }));
      build.onLoad({ filter: entry, namespace: 'file' }, (args) => {
        entryPath = args.path;
        const analysis = analyseEntry(readFileSync(args.path, 'utf8'));
        if (analysis.reason) return { warnings: [{ text: `${pkg}'s entry is loaded whole (its shape is not the one expected: ${analysis.reason})` }] };
        return { contents: lazyEntry(analysis), resolveDir: dirname(args.path), loader: 'js' };
      });
    },
  };
}

/**
 * undici's HTTP/2 client requires node:http2 as it loads (with tls and crypto behind it: about a tenth of the CPU of
 * `forgectl api /user`) and reads a few of its constants, for connections that only speak HTTP/2 when asked to
 * (`allowH2`, which forgectl never sets). undici's files get a stand-in: HTTP/2's header names, methods and error
 * codes (the protocol's, read from node:http2 here at build time), and the real module, loaded on first use, for
 * anything else, constants included.
 */
export const lazyHttp2 = {
  name: 'lazy-http2',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:http2$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: 'http2', namespace: 'lazy-http2' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-http2' }, async () => {
      const { constants } = await import('node:http2');
      const protocol = Object.fromEntries(Object.entries(constants).filter(([name]) => /^(HTTP2_HEADER_|HTTP2_METHOD_|NGHTTP2_)/.test(name)));
      return {
        contents: `let real;
const http2 = () => (real ??= require('node:http2'));
const constants = new Proxy(${JSON.stringify(protocol)}, { get: (known, name) => (Object.hasOwn(known, name) ? known[name] : http2().constants[name]) });
module.exports = new Proxy({}, { get: (_, name) => (name === 'constants' ? constants : http2()[name]) });`,
        loader: 'js',
      };
    });
  },
};

/**
 * undici's files require node:assert as they load (with Node's deep comparisons behind it: about 2 % of the CPU of
 * `forgectl api /user`), and call it only as assert(value) or assert(value, message). They get a stand-in that checks
 * the value itself and loads node:assert only to fail as it fails (its AssertionError); anything else read from it
 * is node:assert's own, loaded then.
 */
export const lazyAssert = {
  name: 'lazy-assert',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: 'assert', namespace: 'lazy-assert' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => ({
      contents: `let real;
const load = () => (real ??= require('node:assert'));
function assert(value, message) {
  if (!value) load()(value, message);
}
module.exports = new Proxy(assert, { get: (target, name) => (name === 'prototype' || name === 'length' || name === 'name' ? target[name] : load()[name]) });`,
      loader: 'js',
    }));
  },
};
