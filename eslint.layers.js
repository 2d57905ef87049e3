// The layers of src/ and who may import whom, checked by `npm run lint` (eslint-plugin-import-x):
//
//   errors, parse, json-fields, files, write, glob  ←  http, git  ←  declarations  ←  output  ←  config, download, fleet  ←  desired  ←  cli  ←  commands  ←  main
//
// A module imports only from its own layer and the layers to its left (within a layer, peers may import each other;
// no two modules may import each other, directly or round a loop). A resource is one folder, src/resources/<resource>/,
// and its files stand in the layers by name: resource.ts (and values.ts, the resource's own value kinds and checks)
// with the declarations, beside src/api, reading only the field kit (KIT below), the leaves and other declarations;
// desired.ts with desired state; sandbox.ts and sandbox-<part>.ts in the sandbox, reading the kernel and their own
// declaration; every other file (commands.ts, <verb>.ts, manifest.ts, shared.ts …) with the commands. The sandbox stands beside the client: it reads the leaves, git's
// object ids, the URL helpers of http/url.ts and the declarations — every module of src/api except the client's own
// (CLIENT below), which no declaration may import either, so the sandbox can never reach the client through one. Only
// the `sandbox` command imports the sandbox. Tests beside the code (src/**/*.test.ts) stand outside the layers.
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** Every file of a resource folder: its declaration, its desired-state section, its sandbox module(s), the rest. */
const RESOURCE = {
  declaration: 'src/resources/*/@(resource|values).ts',
  desired: 'src/resources/*/desired.ts',
  sandbox: 'src/resources/*/sandbox?(-*).ts',
  commands: ['src/resources/*/!(resource|values|desired|sandbox|sandbox-*).ts', 'src/resources/*/*/**'],
};

// Each layer as globs (the rule wants a zone's paths all globs or all folders).
const LAYERS = [
  { name: 'errors, parse, json-fields, files, glob, write', paths: ['src/@(errors|parse|json-fields|files|glob|write).ts'] },
  { name: 'http, git', paths: ['src/http/**', 'src/git/**'] },
  { name: 'api and the resources\' declarations', paths: ['src/api/**', RESOURCE.declaration] },
  { name: 'output', paths: ['src/output/**'] },
  { name: 'config, download, fleet', paths: ['src/config/**', 'src/download/**', 'src/fleet/**'] },
  { name: 'desired state', paths: ['src/desired/**', RESOURCE.desired] },
  { name: 'cli', paths: ['src/cli/**'] },
  { name: 'commands', paths: ['src/commands/**', ...RESOURCE.commands] },
  { name: 'main', paths: ['src/@(main).ts'] },
];

const SANDBOX = ['src/sandbox/**', RESOURCE.sandbox];

/** The API client: requests, pagination, pacing, uploads, error bodies, GraphQL, and the workflows that send requests. */
const CLIENT = ['client', 'paginate', 'pacer', 'lookups', 'multipart', 'errors', 'response', 'commit-actions', 'graphql'];
const CLIENT_FILES = [`src/api/@(${CLIENT.join('|')}).ts`];
const DECLARATIONS = [`src/api/!(${CLIENT.join('|')}).ts`, RESOURCE.declaration];

const layerZones = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1);
  const upward = above.length ? [{ target: layer.paths, from: above.flatMap((l) => l.paths), message: `${layer.name} may not import ${above.map((l) => l.name).join(', ')}: a layer imports only downward (move what it needs down).` }] : [];
  const commandsIndex = LAYERS.findIndex((l) => l.name === 'commands');
  const sandbox = index < commandsIndex ? [{ target: layer.paths, from: SANDBOX, message: 'only the sandbox command imports the sandbox.' }] : [];
  return [...upward, ...sandbox];
});

// Inside the sandbox: the data layer (model.ts, model/) at the bottom, reading only db.ts; the shared modules beside it
// (auth, present, review, repository-access …); the modules on top — each resource's sandbox.ts, and the sandbox's own
// in routes/ — each importing those and never another module (only the generated routes/index.ts imports them, and
// only server.ts imports routes/index.ts).
const MODULES = ['src/sandbox/routes/**', RESOURCE.sandbox];
const MODULE_ALONE = 'a sandbox module imports the data layer and the shared sandbox modules, never another module (move what both need beside the data layer).';
const withinSandbox = [
  { target: ['src/sandbox/routes/!(index).ts', RESOURCE.sandbox], from: MODULES, message: MODULE_ALONE },
  { target: ['src/sandbox/!(server).ts', 'src/sandbox/git/**', 'src/sandbox/model/**', 'src/sandbox/graphql/**'], from: MODULES, message: 'only server.ts imports the sandbox modules (through routes/index.ts): a shared sandbox module may not import one.' },
  { target: ['src/sandbox/model.ts', 'src/sandbox/model/**'], from: ['src/sandbox/**'], except: ['src/sandbox/@(model|db).ts', 'src/sandbox/model/**'].map((path) => resolve(import.meta.dirname, path)), message: 'the data layer (model.ts, model/) reads only db.ts and the API declarations.' },
];

const FOR_SANDBOX = 'the sandbox reads only the leaves, git, http/url.ts and the declarations.';
const notForSandbox = ['src/config/**', 'src/output/**', 'src/download/**', 'src/fleet/**', 'src/desired/**', RESOURCE.desired, 'src/cli/**', 'src/commands/**', ...RESOURCE.commands, 'src/@(main).ts'];
/** What a declaration is written with: the field kinds, defineResource, route paths. */
const KIT = ['fields', 'resource', 'path'];

// A resource's sandbox module reads its own declaration. Those listed here read others' too: modules that still serve
// several resources' routes (each to split, one module per resource), and the variables module, which counts
// variables against the plans' limits.
const READS_OTHERS = {
  'approval-rules/sandbox.ts': ['merge-request-approvals'],
  'branches/sandbox.ts': ['tags'],
  'features/sandbox.ts': ['metadata'],
  'files/sandbox.ts': ['submodules'],
  'groups/sandbox.ts': ['members'],
  'keys/sandbox.ts': ['deploy-keys'],
  'members/sandbox.ts': ['users'],
  'pipelines/sandbox.ts': ['artifacts'],
  'projects/sandbox.ts': ['groups', 'members'],
  'users/sandbox-accounts.ts': ['emails'],
  'users/sandbox-extras.ts': ['access-tokens', 'gpg-keys', 'user-status'],
  'variables/sandbox.ts': ['plan-limits'],
};
const folders = existsSync(resolve(import.meta.dirname, 'src/resources')) ? readdirSync(resolve(import.meta.dirname, 'src/resources')) : [];
const ownDeclaration = folders.flatMap((folder) =>
  readdirSync(resolve(import.meta.dirname, 'src/resources', folder)).filter((file) => /^sandbox(-[a-z-]+)?\.ts$/.test(file)).map((file) => {
    const others = folders.filter((other) => other !== folder && !(READS_OTHERS[`${folder}/${file}`] ?? []).includes(other));
    return {
      target: `src/resources/${folder}/${file}`,
      from: others.length ? [`src/resources/@(${others.join('|')})/@(resource|values).ts`] : [],
      message: 'a resource\'s sandbox module reads its own declaration (and the sandbox kernel): what another resource\'s records need, it reads through the kernel\'s data layer.',
    };
  }),
).filter((zone) => zone.from.length);

const declarationZones = [
  { target: RESOURCE.declaration, from: [`src/api/!(${KIT.join('|')}).ts`, 'src/http/**', 'src/git/**'], message: 'a declaration reads only the field kit (api/fields.ts, api/resource.ts, api/path.ts), the leaves and other declarations.' },
  // The engines that serve every resource name none: only the API's client workflows (lookups, commit actions), the
  // fleet's project selection and desired state read declarations, and only the commands read a resource's commands.
  {
    target: ['src/http/**', 'src/git/**', 'src/output/**', 'src/config/**', 'src/download/**', 'src/cli/**'],
    from: ['src/resources/**'],
    message: 'the transport, output, configuration, downloads and the command framework know no resource: what a resource needs of them it is given (move what is the resource\'s into its folder).',
  },
];

const sandboxZones = [
  { target: SANDBOX, from: notForSandbox, message: FOR_SANDBOX },
  { target: SANDBOX, from: ['src/http/!(url).ts'], message: FOR_SANDBOX },
  { target: SANDBOX, from: CLIENT_FILES, message: 'the sandbox reads the declarations, not the client.' },
  { target: DECLARATIONS, from: CLIENT_FILES, message: 'a declaration does not import the client (the sandbox reads declarations).' },
];

export default [
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layerZones, ...declarationZones, ...sandboxZones, ...withinSandbox, ...ownDeclaration] }],
      'import-x/no-cycle': 'error',
    },
  },
];
