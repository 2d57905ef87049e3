import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presentedFields, ROLES, type ResourceDef, type RoleName, type Verb } from '../../src/api/resource.js';
import { approvalRules } from '../../src/resources/approval-rules/resource.js';
import { draftNotes } from '../../src/resources/draft-notes/resource.js';
import { protectedBranches } from '../../src/resources/protected-branches/resource.js';
import { protectedTags } from '../../src/resources/protected-tags/resource.js';
import { manifest } from '../../src/commands/manifest.js';
import { badges } from '../../src/resources/badges/resource.js';
import { groupBadges } from '../../src/resources/group-badges/resource.js';
import { freezePeriods } from '../../src/resources/freeze-periods/resource.js';
import { secureFiles } from '../../src/resources/secure-files/resource.js';
import { tempDir, type TestSandbox, useTestSandbox } from '../helpers/cli.js';
import { declarationFolders, declarationModule } from '../helpers/resources.js';
import { hooks } from '../../src/resources/hooks/resource.js';
import { projectSnippets } from '../../src/resources/snippets/resource.js';
import { notes } from '../../src/resources/notes/resource.js';
import { placed } from '../../src/api/resource.js';
import { branches } from '../../src/resources/branches/resource.js';
import { tags } from '../../src/resources/tags/resource.js';
import { deployKeys } from '../../src/resources/deploy-keys/resource.js';
import { generateKeyPairSync } from 'node:crypto';

/**
 * One contract for every declared resource (src/resources/<resource>/resource.ts), driven by its declaration: the plain verbs
 * against the sandbox's CRUD of the same declaration. Each row gives what the declaration cannot: arguments that
 * create a valid record, and options of an update that changes it.
 */
interface Row {
  resource: ResourceDef & { command: string };
  /** The verb and options of a create that succeeds (a fresh record each time). */
  create: () => string[];
  /** Options of an update that changes something. */
  update?: string[];
  /** An id no record has, and one the id's kind refuses (undefined: every text is a valid id). */
  missingId: string;
  badId?: string;
  /** Options that say where records live beyond --project/--group (the scope: --mr 1). */
  scope?: string[];
  /** Verbs named otherwise (protected tags: unprotect). */
  verbs?: Partial<Record<Verb, string>>;
}

let serial = 0;
/** A fresh OpenSSH ed25519 public key line. */
function newSshKey(): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} contract@test`;
}
const upload = join(tempDir(), 'upload.bin');
writeFileSync(upload, 'secure bytes');
const snippetFile = join(tempDir(), 'notes.md');
writeFileSync(snippetFile, '# notes\n');
const rows: Row[] = [
  {
    resource: branches,
    create: () => ['create', '--branch', `release/1.${serial++}`, '--ref', 'main'],
    missingId: 'no-such-branch',
  },
  {
    resource: deployKeys,
    create: () => ['create', '--title', `key ${serial++}`, '--key', newSshKey()],
    update: ['--title', 'renamed'],
    missingId: '999999',
    badId: 'abc',
  },
  {
    resource: tags,
    create: () => ['create', '--name', `v9.${serial++}.0`, '--ref', 'main', '--message', 'a release'],
    missingId: 'no-such-tag',
  },
  {
    resource: projectSnippets,
    create: () => ['create', '--title', `notes ${serial++}`, snippetFile],
    update: ['--title', 'renamed'],
    missingId: '999999',
    badId: 'abc',
  },
  {
    resource: hooks,
    create: () => ['create', '--url', `http://127.0.0.1:9/hook/${serial++}`, '--events', 'push,note'],
    update: ['--name', 'renamed'],
    missingId: '999999',
    badId: 'abc',
  },
  {
    resource: freezePeriods,
    create: () => ['create', '--freeze-start', `${serial++ % 60} 1 * * *`, '--freeze-end', '0 2 * * *'],
    update: ['--cron-timezone', 'Asia/Tokyo'],
    missingId: '999999',
    badId: 'abc',
  },
  {
    resource: badges,
    create: () => ['create', '--name', `b${serial++}`, '--link-url', 'https://ci.example.com/%{project_path}', '--image-url', 'https://ci.example.com/b.svg'],
    update: ['--name', 'renamed'],
    missingId: '999999',
    badId: '0',
  },
  {
    resource: groupBadges,
    create: () => ['create', '--name', `g${serial++}`, '--link-url', 'https://ci.example.com/%{project_path}', '--image-url', 'https://ci.example.com/g.svg'],
    update: ['--name', 'renamed'],
    missingId: '999999',
    badId: '0',
  },
  {
    resource: secureFiles,
    create: () => ['upload', '--file', upload, '--name', `file-${serial++}.bin`],
    missingId: '999999',
    badId: '1x',
  },
  {
    resource: protectedTags,
    create: () => ['protect', '--name', `tag-${serial++}-*`],
    missingId: 'no-such-tag',
    badId: '',
    verbs: { delete: 'unprotect' },
  },
  {
    // Under two parents: each verb is checked at the project.
    resource: placed(protectedBranches, 'project'),
    create: () => ['protect', '--name', `branch-${serial++}/*`],
    update: ['--allow-force-push'],
    missingId: 'no-such-branch',
    badId: '',
    verbs: { delete: 'unprotect' },
  },
  {
    resource: placed(approvalRules, 'project'),
    create: () => ['create', '--name', `rule ${serial++}`, '--approvals-required', '1'],
    update: ['--approvals-required', '2'],
    missingId: '999999',
    badId: '0',
  },
  {
    // Under several parents: each verb is checked at one of them (the issue), selected by --issue.
    resource: placed(notes, 'issue'),
    scope: ['--issue', '1'],
    create: () => ['create', '--body', `note ${serial++}`],
    update: ['--body', 'changed'],
    missingId: '999999',
    badId: 'x',
  },
  {
    resource: draftNotes,
    scope: ['--mr', '1'],
    create: () => ['create', '--note', `draft ${serial++}`],
    update: ['--note', 'changed'],
    missingId: '999999',
    badId: 'x',
  },
];

const sandbox = useTestSandbox();

/**
 * Declarations whose commands are all hand-written workflows (tested beside them), and singletons (a push
 * rule, approval settings, a pull mirror: no list or id), and reads with hand-written filters (audit events), and
 * service accounts (the service reads no single account: no get, and update and delete find one by name): no plain
 * verbs to check.
 */
const handWritten = ['alerts', 'service-accounts', 'audit-events', 'repository', 'commits', 'files', 'artifacts', 'pipelines', 'push-rule', 'approval-settings', 'pull-mirror', 'access-tokens', 'plan-limits', 'integrations', 'projects', 'groups', 'users', 'keys', 'submodules', 'licenses', 'storage-moves', 'variables', 'deploy-tokens', 'runners', 'merge-trains', 'experiments', 'members', 'metadata', 'merge-request-approvals'];

/**
 * Declarations no command uses (they have no `command`): routes the sandbox serves for other clients (python-gitlab,
 * gitbeaker), held against the service by fidelity.test.ts and served as declared (test/sandbox/registry.test.ts).
 */
const forOtherClients = ['emails', 'gpg-keys', 'user-status', 'features', 'merge-requests', 'issues'];

const declarationFiles = declarationFolders();

it('every declared resource has a row', () => {
  expect([...rows.map((row) => row.resource.command), ...handWritten, ...forOtherClients].sort()).toEqual(declarationFiles.sort());
});

it('a declaration names a command group the CLI has, or none when no command uses it (it makes no command)', async () => {
  const groups = new Set(manifest.flatMap((entry) => entry.path.split(' ').map((_, i, words) => words.slice(0, i + 1).join(' '))));
  for (const file of declarationFiles) {
    const module = await declarationModule(file);
    const found = Object.values(module).filter((value): value is { noun: string; command?: string } => typeof value === 'object' && value !== null && 'fields' in value && 'noun' in value);
    for (const def of found) {
      if (forOtherClients.includes(file)) expect(def.command, `${file}: ${def.noun}`).toBeUndefined();
      else expect(groups.has(def.command ?? ''), `${file}: ${def.noun} (command ${String(def.command)})`).toBe(true);
    }
  }
  expect(manifest.filter((entry) => forOtherClients.some((file) => entry.path.split(' ')[0] === file))).toEqual([]);
});

const lower = (role: RoleName): RoleName | undefined => ROLES[ROLES.indexOf(role) - 1];

describe.each(rows)('$resource.command', (row) => {
  const { resource } = row;
  const where = [...(resource.parent === 'project' ? ['--project', 'acme/api'] : ['--group', 'acme']), ...(row.scope ?? [])];
  const cli = (verb: string, args: string[] = [], options: Parameters<TestSandbox['run']>[1] = {}) =>
    sandbox.run([resource.command, row.verbs?.[verb as Verb] ?? verb, ...args, ...where], options);
  /** The default columns of the list command (the declaration's, or those its computed columns make). */
  const listCommand = async () => (await manifest.find((entry) => entry.path === `${resource.command} list`)!.load()).default;
  const create = async (): Promise<Record<string, unknown>> => {
    const [verb, ...args] = row.create();
    const result = await cli(verb, [...args, '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.json();
  };
  const idOf = (record: Record<string, unknown>): string => String(record[resource.id.field]);

  it('creates, and gets the same record back (-o json round trip)', async () => {
    const record = await create();
    // The service's fields here in its order (but those this placement goes without); a command may add the
    // declaration's computed ones (who may push, in words).
    expect(Object.keys(record).filter((key) => !(resource.computed ?? []).includes(key))).toEqual(presentedFields(resource).map(([name]) => name).filter((name) => !resource.without?.includes(name)));
    const got = await cli('get', [idOf(record), '-o', 'json']);
    expect(got.json()).toEqual(record);
  });

  it('lists as a table with a header on a terminal, as headerless TSV in a pipe', async () => {
    const record = await create();
    const all = (await listCommand()).list ? ['--all'] : [];
    const tty = await cli('list', [...all, '--no-color'], { tty: true });
    expect(tty.code).toBe(0);
    const shown = (await listCommand()).columns!;
    const header = tty.stdout.split('\n').find((line) => line.includes(shown[0]))!;
    for (const column of shown) expect(header).toContain(column);

    const piped = await cli('list', all);
    const lines = piped.stdout.replace(/\n$/, '').split('\n').map((line) => line.split('\t'));
    expect(lines.every((cells) => cells.length === shown.length)).toBe(true);
    expect(lines.some((cells) => cells.join() === shown.join())).toBe(false);
    const position = shown.indexOf(resource.id.field);
    expect(lines.map((cells) => cells[position])).toContain(idOf(record));
  });

  it('answers a missing record with exit 5, and refuses a bad id with exit 2 sending nothing', async () => {
    expect((await cli('get', [row.missingId])).code).toBe(5);
    if (row.badId === undefined) return;
    sandbox.clearRequests();
    for (const verb of ['get', 'update', 'delete'].filter((v) => resource.routes[v as 'get'])) {
      expect((await cli(verb, [row.badId, ...(verb === 'update' ? (row.update ?? []) : []), '--yes'])).code).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it.runIf(resource.routes.update)('updates, and refuses an update with nothing to change', async () => {
    const record = await create();
    sandbox.clearRequests();
    const nothing = await cli('update', [idOf(record)]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');
    expect(sandbox.requests()).toEqual([]);
    const updated = await cli('update', [idOf(record), ...row.update!, '-o', 'json']);
    expect(updated.code).toBe(0);
    expect(updated.json()).not.toEqual(record);
  });

  it.runIf(resource.routes.delete)('deletes only when confirmed: no --yes off a terminal is exit 2', async () => {
    const record = await create();
    sandbox.clearRequests();
    const refused = await cli('delete', [idOf(record)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await cli('delete', [idOf(record), '--yes'])).code).toBe(0);
    expect((await cli('get', [idOf(record)])).code).toBe(5);
  });

  it(`needs the ${resource.roles.read} role to read and the ${resource.roles.write} role to change`, async () => {
    const as = (role: RoleName) => ({ env: { FORGECTL_TOKEN: sandbox.tokenWithRole(role) } });
    expect((await cli('list', [], as(resource.roles.read))).code).toBe(0);
    const belowRead = lower(resource.roles.read);
    // Denied (403 → 4), or hidden as if absent (404 → 5, merge requests of a private project for a guest).
    if (belowRead) expect([4, 5]).toContain((await cli('list', [], as(belowRead))).code);
    const belowWrite = lower(resource.roles.write);
    const [verb, ...args] = row.create();
    if (belowWrite) expect([4, 5]).toContain((await cli(verb, args, as(belowWrite))).code);
    expect((await cli(verb, args, as(resource.roles.write))).code).toBe(0);
  });
});
