import type { Db } from './db.js';
import { newTokenValue } from './db.js';
import { Role } from './auth.js';
import { repositoryOf, seedCommit } from './git/repository.js';
import { groupById } from './hierarchy.js';
import {
  groups, issues, members, mergeRequests, NEW_GROUP, NEW_PROJECT, projects, tokens, USER_NAMESPACE_BASE, users,
  type AccessToken, type Group, type Project, type User,
} from './model.js';

export interface SeedOptions {
  seed: 'demo' | 'empty';
  users: number;
  /** More projects in nested subgroups of acme (the demo seed only): see routes/fleet.ts. */
  fleet?: number;
  now: Date;
  /** Size in bytes of the demo's large artifact (see routes/pipelines.ts). */
  artifactSize?: number;
}

export const STORAGES = ['default', 'storage2'];

/** Projects per squad and squads per team of the fleet seed. */
const PER_SQUAD = 10;
const SQUADS = 5;

/** The full path of fleet project number `n` (1-based): acme/team-01/squad-1/svc-001. */
export function fleetProjectPath(n: number): string {
  const index = n - 1;
  const team = Math.floor(index / (PER_SQUAD * SQUADS)) + 1;
  const squad = Math.floor((index % (PER_SQUAD * SQUADS)) / PER_SQUAD) + 1;
  return `acme/team-${String(team).padStart(2, '0')}/squad-${squad}/svc-${String(n).padStart(3, '0')}`;
}

export function isoDate(date: Date, plusDays = 0): string {
  return new Date(date.getTime() + plusDays * 86_400_000).toISOString().slice(0, 10);
}

export function addUser(db: Db, fields: Partial<User> & { username: string }, now: Date): User {
  const user: User = {
    id: db.nextId('users'),
    name: fields.username,
    email: `${fields.username}@example.com`,
    state: 'active',
    is_admin: false,
    bot: false,
    external: false,
    created_at: now.toISOString(),
    ...fields,
  };
  users(db).push(user);
  return user;
}

/** An access token of a user: a personal one unless `fields` say otherwise (group and project tokens belong to bots). */
export function addToken(db: Db, user: User, fields: Partial<AccessToken>, now: Date): AccessToken {
  const id = db.nextId('tokens');
  const token: AccessToken = {
    id,
    kind: 'personal',
    user_id: user.id,
    name: `${user.username}-token`,
    description: '',
    scopes: ['api'],
    active: true,
    revoked: false,
    created_at: now.toISOString(),
    expires_at: isoDate(now, 365),
    last_used_at: null,
    token: newTokenValue(),
    family_id: id,
    ...fields,
  };
  tokens(db).push(token);
  return token;
}

/** A group or subgroup (under `parent_id`); its full path follows from its parent's. */
export function addGroup(db: Db, fields: Partial<Group> & { name: string; path: string }, now: Date): Group {
  const parent = fields.parent_id ? groupById(db, fields.parent_id) : undefined;
  const group: Group = {
    ...structuredClone(NEW_GROUP),
    id: db.nextId('groups'),
    full_path: parent ? `${parent.full_path}/${fields.path}` : fields.path,
    parent_id: parent?.id ?? null,
    created_at: now.toISOString(),
    ...fields,
  };
  groups(db).push(group);
  return group;
}

/**
 * Creates a project in a group or a personal namespace, with an empty repository. Every project, seeded or created
 * through the API, is created here: what a new project gets (its repository) belongs here too.
 */
export function addProject(db: Db, fields: Partial<Project> & { name: string; path: string; namespace_id: number }, now: Date): Project {
  const namespacePath = fields.namespace_id > USER_NAMESPACE_BASE
    ? users(db).find((u) => u.id === fields.namespace_id - USER_NAMESPACE_BASE)?.username
    : groupById(db, fields.namespace_id)?.full_path;
  if (namespacePath === undefined) throw new Error(`no namespace ${fields.namespace_id}`);
  const at = now.toISOString();
  const project: Project = {
    ...structuredClone(NEW_PROJECT),
    id: db.nextId('projects'),
    path_with_namespace: `${namespacePath}/${fields.path}`,
    created_at: at,
    updated_at: at,
    last_activity_at: at,
    ...fields,
  };
  projects(db).push(project);
  repositoryOf(db, project.id);
  return project;
}

/** The core seed: administrator root with a token; with `demo`, group acme, its projects, an issue and an MR. */
export function seedCore(db: Db, options: SeedOptions): { adminToken: AccessToken } {
  const { now } = options;
  const root = addUser(db, { username: 'root', name: 'Administrator', is_admin: true }, now);
  const adminToken = addToken(db, root, {
    name: 'sandbox-admin',
    scopes: ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode', 'self_rotate'],
    expires_at: isoDate(now, 365),
  }, now);
  db.record('storages', () => [...STORAGES]);
  if (options.seed === 'empty') {
    for (let i = 1; i <= options.users; i++) addUser(db, { username: `user${i}`, name: `User ${i}` }, now);
    return { adminToken };
  }

  const alice = addUser(db, { username: 'alice', name: 'Alice Maintainer' }, now);
  const bob = addUser(db, { username: 'bob', name: 'Bob Developer' }, now);
  addToken(db, alice, { name: 'alice-token', expires_at: isoDate(now, 90) }, now);
  addToken(db, bob, { name: 'bob-token', expires_at: isoDate(now, 60) }, now);
  for (let i = 1; i <= options.users; i++) addUser(db, { username: `user${i}`, name: `User ${i}` }, now);

  const acme = addGroup(db, { name: 'Acme', path: 'acme' }, now);
  members(db).push(
    { source_type: 'group', source_id: acme.id, user_id: root.id, access_level: Role.owner },
    { source_type: 'group', source_id: acme.id, user_id: alice.id, access_level: Role.maintainer },
    { source_type: 'group', source_id: acme.id, user_id: bob.id, access_level: Role.developer },
  );

  for (const name of ['api', 'web']) {
    const project = addProject(db, { name, path: name, namespace_id: acme.id, description: `The ${name} of Acme`, creator_id: root.id }, now);
    const day = (n: number) => new Date(now.getTime() - (10 - n) * 86_400_000);
    const c1 = seedCommit(db, project.id, undefined, 'Initial commit', { 'README.md': `# acme/${name}\n`, '.gitignore': 'node_modules/\n' }, day(1));
    const c2 = seedCommit(db, project.id, c1, 'Add the service', { 'src/main.rb': 'puts "hello"\n', 'src/config.yml': 'port: 8080\n' }, day(2));
    const c3 = seedCommit(db, project.id, c2, 'Document deployment', { 'docs/deploy.md': '# Deploying\n\nRun make deploy.\n' }, day(3));
    const branches: Record<string, string> = { main: c3.id };
    if (name === 'api') {
      const f1 = seedCommit(db, project.id, c3, 'Add health endpoint', { 'src/health.rb': 'get "/health" do "ok" end\n' }, day(4));
      branches['feature/health'] = f1.id;
      const createdAt = day(4).toISOString();
      issues(db).push({ id: db.nextId('issues'), iid: 1, project_id: project.id, title: 'Health endpoint is missing', description: 'Load balancers need /health.', state: 'opened', author_id: alice.id, created_at: createdAt, updated_at: createdAt });
      mergeRequests(db).push({
        id: db.nextId('merge_requests'), iid: 1, project_id: project.id, title: 'Add health endpoint', description: 'Closes #1', state: 'opened',
        source_branch: 'feature/health', target_branch: 'main', sha: f1.id, author_id: bob.id, created_at: createdAt, updated_at: createdAt,
        merge_status: 'can_be_merged', detailed_merge_status: 'mergeable', approvals_required: 1, approved_by: [],
      });
    }
    Object.assign(repositoryOf(db, project.id), { branches, tags: { 'v1.0.0': c2.id } });
  }
  // A sign-up waiting for an administrator's approval (people sign up on the web page, which the sandbox does not serve).
  addUser(db, { username: 'applicant', name: 'Pending Applicant', state: 'blocked_pending_approval' }, now);
  return { adminToken };
}
