import { MD5_FINGERPRINT, md5Fingerprint, parsePublicKey, sha256Fingerprint } from './values.js';
import { deployKeys, INSTANCE_DEPLOY_KEYS } from '../deploy-keys/resource.js';
import { sshKeys } from './resource.js';
import { findProject, projectFor, requireAdmin, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { users, type User, type SshKey, sshKeyTable } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { deployKeysOf } from '../../sandbox/protection.js';
import type { SandboxModule } from '../../sandbox/module.js';
import type { Router } from '../../sandbox/router.js';
import { presentFullUser, userRecordRoutes } from '../../sandbox/users.js';
import { found, presentRecord, requireOneOf } from '../../sandbox/records.js';
import { placed } from '../../api/resource.js';

/** The instance's view of a key (with its owner), and a user's view of their own. */
const ANY_KEY = placed(sshKeys, 'instance');
const OWN_KEY = placed(sshKeys, 'current');

/** Real key material (made with ssh-keygen), so fingerprints match what users compute locally. */
export const SEED_KEYS = {
  aliceEd25519: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDQKf1mDC9bj1YFBwg/q7vePm8xr2xn2S/NAqCuzgXgS alice@laptop',
  aliceRsa: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDVQRBa7YKwH50FcUdifpmIz6lfEbl6QNufoT9go10lGpD9mq8wNnDu+KfThVo8NnEMWyLXtjoXuf0Cae5NVOqp7FvEjSIo5N9uKT/1MYmPsx4goHrmK0lihDxX61oGSXVHoyTOK8cAoNUG+zHnegsX/dkQxonKOorrNOm6aPRWiyJz9k/dgIQd3xcfEtjphtYVrYtTP1Y323SZ0Glqoz3mGPjIT2iBO8a0+ZEfjDTNgDt0VFW4f8qmeE1/SBg14n1AHlk3ce3qTk+BACtGCj9txnvVZqw8b/veaxtbkQ0yZ0F3n9DCSpjQL9zUqRZzEQH3rs6BzsNEKMPGrDNUGQo1 alice@workstation',
  deploy: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPIvJXfBjL3LXjcbcNVbpWtv4YckfjoC7KwC4etuwK4R deploy@ci',
};

/** A key as the instance's key endpoints present it: with its owner, and a deploy key with the projects it is enabled on. */
function present(req: SandboxRequest, key: SshKey): Record<string, unknown> {
  const owner = users(req.db).find((u) => u.id === key.user_id);
  return presentRecord(ANY_KEY, key, {
    user: owner ? { ...presentFullUser(owner, req), shared_runners_minutes_limit: null, extra_shared_runners_minutes_limit: null } : null,
    deploy_keys_projects: key.deploy_keys_projects?.map((link) => ({
      id: link.id, deploy_key_id: key.id, project_id: link.project_id, created_at: link.created_at, updated_at: link.updated_at, can_push: link.can_push,
    })),
  });
}

/** The key whose MD5 (colon hex, optionally "MD5:") or SHA256 ("SHA256:…") fingerprint is given. */
function findByFingerprint(db: Db, fingerprint: string): SshKey | undefined {
  let matches: (blob: Buffer) => boolean;
  if (fingerprint.startsWith('SHA256:')) {
    matches = (blob) => sha256Fingerprint(blob) === fingerprint;
  } else if (MD5_FINGERPRINT.test(fingerprint.replace(/^MD5:/, ''))) {
    const md5 = fingerprint.replace(/^MD5:/, '').toLowerCase();
    matches = (blob) => md5Fingerprint(blob) === md5;
  } else {
    throw errors.message(400, 'Failed to return the key');
  }
  return sshKeyTable(db).find((key) => {
    const parsed = parsePublicKey(key.key);
    return parsed !== undefined && matches(parsed.blob);
  });
}

/** A user's own SSH key as the user keys endpoints present it (without the owner). */
const presentUserKey = (key: SshKey): Record<string, unknown> => presentRecord(OWN_KEY, key);

const USAGE_TYPES = ['auth', 'signing', 'auth_and_signing'] as const;

/** The title and OpenSSH public key of a create request: 400 when either is missing or the key is no public key. */
function titledKey(req: SandboxRequest): { title: string; key: string } {
  const title = String(required(req, 'title'));
  const key = String(required(req, 'key')).trim();
  if (!parsePublicKey(key)) throw errors.validation({ key: ['is invalid'], fingerprint_sha256: ['cannot be generated'] });
  return { title, key };
}

/** expires_at of a create request: null when not given, 400 when it is no date. */
function keyExpiry(req: SandboxRequest): string | null {
  const expires = req.input.expires_at === undefined || req.input.expires_at === null || req.input.expires_at === '' ? null : String(req.input.expires_at);
  if (expires !== null && Number.isNaN(Date.parse(expires))) throw errors.invalid('expires_at');
  return expires;
}

/** A new key's record, not yet stored (it takes the next id). */
const newKey = (req: SandboxRequest, values: Pick<SshKey, 'user_id' | 'title' | 'key' | 'expires_at' | 'usage_type'> & Partial<SshKey>): SshKey =>
  ({ id: req.db.nextId('ssh_keys'), created_at: req.now().toISOString(), last_used_at: null, ...values });

const sameKey = (a: string, b: string): boolean => sha256Fingerprint(parsePublicKey(a)?.blob ?? Buffer.alloc(0)) === sha256Fingerprint(parsePublicKey(b)?.blob ?? Buffer.alloc(1));

/** A key whose fingerprint another key has already. */
const keyTaken = () => errors.validation({ key: ['has already been taken'], fingerprint_sha256: ['has already been taken'] });

/** Adds an SSH key to a user: a valid OpenSSH public key whose fingerprint no other key has. */
function addKey(req: SandboxRequest, user: User) {
  const { title, key: text } = titledKey(req);
  if (sshKeyTable(req.db).some((k) => sameKey(k.key, text))) throw keyTaken();
  const usage = req.input.usage_type === undefined ? 'auth_and_signing' : String(req.input.usage_type);
  if (!(USAGE_TYPES as readonly string[]).includes(usage)) throw errors.invalid('usage_type');
  const key = newKey(req, { user_id: user.id, title, key: text, expires_at: keyExpiry(req), usage_type: usage as SshKey['usage_type'] });
  sshKeyTable(req.db).push(key);
  return created(presentUserKey(key));
}

/** A deploy key as a project's deploy key endpoints present it: with can_push of that project's link. */
function presentDeployKey(key: SshKey, projectId?: number): Record<string, unknown> {
  const blob = parsePublicKey(key.key)?.blob ?? Buffer.alloc(0);
  return presentRecord(deployKeys, key, {
    fingerprint: md5Fingerprint(blob),
    fingerprint_sha256: sha256Fingerprint(blob),
    can_push: projectId === undefined ? undefined : (key.deploy_keys_projects?.find((link) => link.project_id === projectId)?.can_push ?? false),
  });
}

/** An instance deploy key, with the projects it is enabled on. */
function presentInstanceDeployKey(req: SandboxRequest, key: SshKey): Record<string, unknown> {
  const projectsOf = (push: boolean) => (key.deploy_keys_projects ?? []).filter((link) => link.can_push === push).map((link) => {
    const project = findProject(req.db, String(link.project_id));
    return { id: project.id, name: project.name, path_with_namespace: project.path_with_namespace, created_at: project.created_at };
  });
  return { ...presentDeployKey(key), projects_with_write_access: projectsOf(true), projects_with_readonly_access: projectsOf(false) };
}

/** A new deploy key (title and a valid public key), enabled on no project yet: its creator's, for authentication. */
function newDeployKey(req: SandboxRequest): SshKey {
  const { title, key } = titledKey(req);
  return newKey(req, { user_id: req.user!.id, title, key, expires_at: keyExpiry(req), usage_type: 'auth', deploy_keys_projects: [] });
}

function linkKey(req: SandboxRequest, key: SshKey, projectId: number, canPush: boolean): void {
  const at = req.now().toISOString();
  (key.deploy_keys_projects ??= []).push({ id: req.db.nextId('deploy_keys_projects'), project_id: projectId, can_push: canPush, created_at: at, updated_at: at });
}

/** The project of a deploy key's route, which the caller maintains. */
const maintainedProject = (req: SandboxRequest) => projectFor(req, Role.maintainer);

/** The project's deploy key the route names, else 404. */
function projectKey(req: SandboxRequest, projectId: number): SshKey {
  return found(deployKeysOf(req.db, projectId).find((k) => String(k.id) === req.params.key_id), 'Deploy Key');
}

/** A new deploy key of the project, or the project enabling a deploy key that exists already (the same key). */
function addDeployKey(req: SandboxRequest) {
  const { id } = maintainedProject(req);
  const candidate = newDeployKey(req);
  const canPush = bool(req.input.can_push) ?? false;
  const existing = sshKeyTable(req.db).find((k) => sameKey(k.key, candidate.key));
  if (existing && (!existing.deploy_keys_projects || existing.deploy_keys_projects.some((link) => link.project_id === id))) {
    throw errors.validation({ 'deploy_key.fingerprint_sha256': ['has already been taken'] });
  }
  if (existing) {
    linkKey(req, existing, id, canPush);
    return created(presentDeployKey(existing, id));
  }
  sshKeyTable(req.db).push(candidate);
  linkKey(req, candidate, id, canPush);
  return created(presentDeployKey(candidate, id));
}

/** The key's title (every project's) and whether it may push (this project's). */
function updateDeployKey(req: SandboxRequest) {
  const { id } = maintainedProject(req);
  const key = projectKey(req, id);
  requireOneOf(req, ['title', 'can_push']);
  if (req.input.title !== undefined) key.title = String(req.input.title);
  const link = key.deploy_keys_projects!.find((l) => l.project_id === id)!;
  const canPush = bool(req.input.can_push);
  if (canPush !== undefined) Object.assign(link, { can_push: canPush, updated_at: req.now().toISOString() });
  return ok(presentDeployKey(key, id));
}

/**
 * Deploy keys: a project's (list, get, create — or enable the same key when it exists already —, update its title
 * and can_push, enable an existing key by id, delete: the key goes when no project has it any more), and the
 * instance's list and create (administrators).
 */
function deployKeyRoutes(api: Router): void {
  api.route(deployKeys.routes.list, (req) => {
    const { id } = maintainedProject(req);
    return paginate(req, deployKeysOf(req.db, id), { present: (key) => presentDeployKey(key, id) });
  });
  api.route(deployKeys.routes.get, (req) => {
    const { id } = maintainedProject(req);
    return ok(presentDeployKey(projectKey(req, id), id));
  });
  api.route(deployKeys.routes.create, addDeployKey);
  api.route(deployKeys.routes.update, updateDeployKey);
  api.route(deployKeys.routes.enable, (req) => {
    const { id } = maintainedProject(req);
    const key = found(sshKeyTable(req.db).find((k) => k.deploy_keys_projects && String(k.id) === req.params.key_id), 'Deploy Key');
    if (!key.deploy_keys_projects!.some((link) => link.project_id === id)) linkKey(req, key, id, false);
    return created(presentDeployKey(key));
  });
  api.route(deployKeys.routes.delete, (req) => {
    const { id } = maintainedProject(req);
    const key = projectKey(req, id);
    key.deploy_keys_projects = key.deploy_keys_projects!.filter((link) => link.project_id !== id);
    if (!key.deploy_keys_projects.length) sshKeyTable(req.db).splice(sshKeyTable(req.db).indexOf(key), 1);
    return noContent();
  });
  api.route(INSTANCE_DEPLOY_KEYS.list, (req) => {
    requireAdmin(req);
    const publicOnly = bool(req.query.public);
    const list = sshKeyTable(req.db).filter((k) => k.deploy_keys_projects && (!publicOnly || k.public === true));
    return paginate(req, list, { present: (key) => presentInstanceDeployKey(req, key) });
  });
  api.route(INSTANCE_DEPLOY_KEYS.create, (req) => {
    requireAdmin(req);
    const key = newDeployKey(req);
    if (sshKeyTable(req.db).some((k) => sameKey(k.key, key.key))) throw keyTaken();
    key.public = true;
    sshKeyTable(req.db).push(key);
    return created(presentInstanceDeployKey(req, key));
  });
}

export const keys: SandboxModule = {
  routes(api) {
    // Your own SSH keys, and anyone's (public; administrators add and remove them); deploy keys are no user's.
    userRecordRoutes(api, sshKeys, { table: sshKeyTable, owned: (k) => !k.deploy_keys_projects, notFound: 'Key', present: presentUserKey, add: addKey });
    const { instance } = sshKeys.parents;

    // Both endpoints are for administrators (authenticated_with_can_read_all_resources!).
    api.route(instance.routes.find, (req) => {
      requireAdmin(req);
      const key = found(findByFingerprint(req.db, String(required(req, 'fingerprint'))), 'Key');
      return ok(present(req, key));
    }, { scope: 'read' });

    api.route(instance.routes.get, (req) => {
      requireAdmin(req);
      const key = found(sshKeyTable(req.db).find((k) => String(k.id) === req.params.key_id), 'Key');
      return ok(present(req, key));
    }, { scope: 'read' });

    deployKeyRoutes(api);
  },

  seed(db, { now }) {
    const alice = users(db).find((u) => u.username === 'alice')!;
    const root = users(db).find((u) => u.username === 'root')!;
    const at = now.toISOString();
    const add = (fields: Omit<SshKey, 'id' | 'created_at' | 'expires_at' | 'last_used_at' | 'usage_type'> & Partial<SshKey>) =>
      sshKeyTable(db).push({ id: db.nextId('ssh_keys'), created_at: at, expires_at: null, last_used_at: null, usage_type: 'auth_and_signing', ...fields });
    add({ user_id: alice.id, title: 'alice@laptop', key: SEED_KEYS.aliceEd25519 });
    add({ user_id: alice.id, title: 'alice@workstation', key: SEED_KEYS.aliceRsa });
    const apiProject = findProject(db, 'acme/api');
    add({
      user_id: root.id,
      title: 'CI deploy key',
      key: SEED_KEYS.deploy,
      usage_type: 'auth',
      deploy_keys_projects: [{ id: db.nextId('deploy_keys_projects'), project_id: apiProject.id, can_push: true, created_at: at, updated_at: at }],
    });
  },
};
