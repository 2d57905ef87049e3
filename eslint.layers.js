// The layers of src/ and who may import whom, checked by `npm run lint` (eslint-plugin-import-x):
//
//   errors, parse, files, write, glob  ←  http, git  ←  api  ←  output  ←  config, download, fleet  ←  desired  ←  cli  ←  commands  ←  main
//
// A module imports only from its own layer and the layers to its left (within a layer, peers may import each other;
// no two modules may import each other, directly or round a loop). The sandbox stands beside the client: it reads
// the leaves, git's object ids, the URL helpers of http/url.ts and the API's declarations — every module of src/api
// except the client's own (CLIENT below), which no declaration may import either, so the sandbox can never reach
// the client through one. Only the `sandbox` command imports the sandbox.
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const LAYERS = [
  ['src/errors.ts', 'src/parse.ts', 'src/files.ts', 'src/glob.ts', 'src/write.ts'],
  ['src/http', 'src/git'],
  ['src/api'],
  ['src/output'],
  ['src/config', 'src/download', 'src/fleet'],
  ['src/desired'],
  ['src/cli'],
  ['src/commands'],
  ['src/main.ts'],
];

/** The API client: requests, pagination, pacing, uploads, error bodies, GraphQL, and the workflows that send requests. */
const CLIENT = ['client.ts', 'paginate.ts', 'pacer.ts', 'lookups.ts', 'multipart.ts', 'errors.ts', 'response.ts', 'commit-actions.ts', 'graphql.ts'].map((file) => `src/api/${file}`);

const name = (paths) => paths.map((p) => p.replace(/^src\//, '')).join(', ');

const layerZones = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  const upward = above.length ? [{ target: layer, from: above, message: `${name(layer)} may not import ${name(above)}: a layer imports only downward (move what it needs down).` }] : [];
  const commandsIndex = LAYERS.findIndex((l) => l.includes('src/commands'));
  const sandbox = index < commandsIndex ? [{ target: layer, from: 'src/sandbox', message: 'only the sandbox command imports the sandbox.' }] : [];
  return [...upward, ...sandbox];
});

// Inside the sandbox: the data layer (model.ts, model/) at the bottom, reading only db.ts; the shared modules beside it
// (auth, present, review, repository-access …); the route modules on top, each importing those and never another
// route module (only the generated routes/index.ts imports them, and only server.ts imports routes/index.ts).
const ROUTE_MODULE_ALONE = 'a sandbox route module imports the data layer and the shared sandbox modules, never another route module (move what both need beside the data layer).';
const withinSandbox = [
  { target: 'src/sandbox/routes/!(index).ts', from: 'src/sandbox/routes', message: ROUTE_MODULE_ALONE },
  { target: ['src/sandbox/!(server).ts', 'src/sandbox/git', 'src/sandbox/model'], from: 'src/sandbox/routes', message: 'only server.ts imports the route modules (through routes/index.ts): a shared sandbox module may not import one.' },
  { target: ['src/sandbox/model.ts', 'src/sandbox/model'], from: 'src/sandbox', except: ['./model.ts', './model', './db.ts'], message: 'the data layer (model.ts, model/) reads only db.ts and the API declarations.' },
];

const notForSandbox = ['src/config', 'src/output', 'src/download', 'src/fleet', 'src/desired', 'src/cli', 'src/commands', 'src/main.ts'];
const sandboxZones = [
  { target: 'src/sandbox', from: notForSandbox, message: 'the sandbox reads only the leaves, git, http/url.ts and the API declarations.' },
  { target: 'src/sandbox', from: 'src/http', except: ['./url.ts'], message: 'the sandbox reads only the leaves, git, http/url.ts and the API declarations.' },
  { target: 'src/sandbox', from: CLIENT, message: 'the sandbox reads the API declarations, not the client.' },
  { target: 'src/api/!(client|paginate|pacer|lookups|multipart|errors|response|commit-actions|graphql).ts', from: CLIENT, message: 'a declaration does not import the client (the sandbox reads declarations).' },
  { target: 'src/api/resources', from: CLIENT, message: 'a declaration does not import the client (the sandbox reads declarations).' },
];

export default [
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layerZones, ...sandboxZones, ...withinSandbox] }],
      'import-x/no-cycle': 'error',
    },
  },
];
