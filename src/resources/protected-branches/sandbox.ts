import { BRANCH_LISTS, branchLevels, type BranchList } from './values.js';
import { protectedBranches as declared } from './resource.js';
import { findProject, groupFor, memberRoleInGroup, memberRoleInProject, projectFor, requireTier, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { bool, created, errors, HttpError, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { groups, protectedBranches, users, type CreateAccess, type Group, type Project, type ProtectedBranch } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { deployKeysOf, mayUnprotect, presentProtectedBranch, protectDefaultBranch } from '../../sandbox/protection.js';
import { protectDefaultBranches } from '../../sandbox/review.js';
import { repositoryOf } from '../../sandbox/git/repository.js';
import { descendantGroups, groupChain, projectGroup } from '../../sandbox/hierarchy.js';

/**
 * Protected branches of projects and (Premium) of groups: list (with search; a project's list shows its groups'
 * rules as inherited), get by name or wildcard, protect (409 when the name is protected already), update with
 * PATCH (entries added, changed by id, removed with `_destroy`), unprotect. Who may push and merge is enforced by
 * the repository modules through ../protection.ts.
 */

type Kind = BranchList;
const KINDS = BRANCH_LISTS;
const LISTS = { push: 'push_access_levels', merge: 'merge_access_levels', unprotect: 'unprotect_access_levels' } as const;
const WORDS = { push: 'Push', merge: 'Merge', unprotect: 'Unprotect' } as const;

/** Where a rule lives: a project (its members, shared groups and deploy keys may be named) or a group. */
type Owner = { project: Project } | { group: Group };

const levelsOf = branchLevels;

function ownerRules(db: Db, owner: Owner): ProtectedBranch[] {
  return protectedBranches(db).filter((rule) => ('project' in owner ? rule.project_id === owner.project.id : rule.group_id === owner.group.id));
}

function findRule(req: SandboxRequest, owner: Owner): ProtectedBranch {
  const rule = ownerRules(req.db, owner).find((r) => r.name === req.params.name);
  if (!rule) throw errors.notFound();
  return rule;
}

/** The problem with a user, group or deploy key entry, as the service words it; undefined when it may be named. */
function entryProblem(db: Db, owner: Owner, kind: Kind, entry: CreateAccess): string | undefined {
  const label = `${WORDS[kind]} access levels`;
  if (entry.user_id !== undefined) {
    const user = users(db).find((u) => u.id === entry.user_id);
    const member = user !== undefined && ('project' in owner ? memberRoleInProject(db, user, owner.project) : memberRoleInGroup(db, user, owner.group)) > 0;
    return member ? undefined : `${label} user is not a member of the ${'project' in owner ? 'project' : 'group'}`;
  }
  if (entry.group_id !== undefined) {
    if (!groups(db).some((g) => g.id === entry.group_id)) return `${label} group can't be blank`;
    if ('group' in owner) return [owner.group, ...descendantGroups(db, owner.group.id)].some((g) => g.id === entry.group_id) ? undefined : `${label} group must be a subgroup of ${owner.group.name}`;
    const shared = owner.project.shared_with_groups?.some((link) => link.group_id === entry.group_id && link.group_access_level >= Role.developer);
    return shared ? undefined : `${label} group does not have access to the project`;
  }
  if (entry.deploy_key_id !== undefined) {
    if (kind !== 'push' || 'group' in owner) return `${label} deploy key is not allowed`;
    return deployKeysOf(db, owner.project.id).some((k) => k.id === entry.deploy_key_id) ? undefined : `${label} deploy key is not enabled for the project`;
  }
  return undefined;
}

/** One `allowed_to_*` item: exactly one of access_level, user_id, group_id, deploy_key_id (and, on update, id/_destroy). */
function parseItem(kind: Kind, raw: unknown): { id?: number; destroy: boolean; entry?: Omit<CreateAccess, 'id'> } {
  const param = `allowed_to_${kind}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw errors.invalid(param);
  const item = raw as Record<string, unknown>;
  const id = item.id === undefined ? undefined : Number(item.id);
  if (id !== undefined && !Number.isInteger(id)) throw errors.invalid(`${param}[id]`);
  const destroy = bool(item._destroy) ?? false;
  const keys = ['access_level', 'user_id', 'group_id', 'deploy_key_id'].filter((k) => item[k] !== undefined && item[k] !== null);
  if (destroy) return { id, destroy };
  if (keys.length !== 1) {
    if (id !== undefined && keys.length === 0) return { id, destroy };
    throw new HttpError(400, { error: `${param} ${keys.length ? 'are mutually exclusive' : 'is missing'}: access_level, user_id, group_id, deploy_key_id` });
  }
  const value = Number(item[keys[0]]);
  if (!Number.isInteger(value)) throw errors.invalid(`${param}[${keys[0]}]`);
  if (keys[0] === 'access_level') {
    if (!levelsOf(kind).includes(value)) throw errors.invalid(`${param}[access_level]`);
    return { id, destroy, entry: { access_level: value } };
  }
  return { id, destroy, entry: { access_level: Role.maintainer, [keys[0]]: value } };
}

function level(req: SandboxRequest, kind: Kind): number | undefined {
  const raw = req.input[`${kind}_access_level`];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!levelsOf(kind).includes(value)) throw errors.invalid(`${kind}_access_level`);
  return value;
}

function allowedList(req: SandboxRequest, kind: Kind): unknown[] {
  const raw = req.input[`allowed_to_${kind}`];
  if (raw === undefined || raw === null || req.tier === 'free') return []; // the free edition does not know the parameter
  if (!Array.isArray(raw)) throw errors.invalid(`allowed_to_${kind}`);
  return raw;
}

const entryKey = (entry: Omit<CreateAccess, 'id'>): string =>
  entry.user_id !== undefined ? `user:${entry.user_id}` : entry.group_id !== undefined ? `group:${entry.group_id}` : entry.deploy_key_id !== undefined ? `key:${entry.deploy_key_id}` : `role:${entry.access_level}`;

/** Each role, user, group and deploy key once, as the service stores them. */
function unique<T extends Omit<CreateAccess, 'id'>>(entries: T[]): T[] {
  const seen = new Set<string>();
  return entries.filter((entry) => (seen.has(entryKey(entry)) ? false : (seen.add(entryKey(entry)), true)));
}

function checkEntries(db: Db, owner: Owner, rule: Pick<ProtectedBranch, 'push_access_levels' | 'merge_access_levels' | 'unprotect_access_levels'>): void {
  const problems = KINDS.flatMap((kind) => rule[LISTS[kind]].map((entry) => entryProblem(db, owner, kind, entry)).filter((p): p is string => Boolean(p)));
  // Save failures are 422 with the model's full messages.
  if (problems.length) throw new HttpError(422, { message: [...new Set(problems)] });
}

function protect(req: SandboxRequest, owner: Owner) {
  const name = String(required(req, 'name'));
  if (!name.trim()) throw errors.invalid('name');
  if (ownerRules(req.db, owner).some((r) => r.name === name)) throw errors.message(409, `Protected branch '${name}' already exists`);
  const lists = Object.fromEntries(KINDS.map((kind) => {
    const given = level(req, kind);
    const allowed = allowedList(req, kind).map((item) => parseItem(kind, item).entry).filter((e): e is Omit<CreateAccess, 'id'> => Boolean(e));
    // Without a level or entries, pushing and merging default to Maintainers; unprotecting to those who may protect.
    const base = given !== undefined ? [{ access_level: given }] : allowed.length || kind === 'unprotect' ? [] : [{ access_level: Role.maintainer }];
    return [LISTS[kind], unique([...base, ...allowed]).map((entry) => ({ ...entry, id: 0 }))];
  })) as Pick<ProtectedBranch, 'push_access_levels' | 'merge_access_levels' | 'unprotect_access_levels'>;
  checkEntries(req.db, owner, lists);
  for (const kind of KINDS) for (const entry of lists[LISTS[kind]]) entry.id = req.db.nextId('protected_branch_access'); // numbered once accepted
  const rule: ProtectedBranch = {
    id: req.db.nextId('protected_branches'),
    ...('project' in owner ? { project_id: owner.project.id } : { group_id: owner.group.id }),
    name,
    ...lists,
    allow_force_push: bool(req.input.allow_force_push) ?? false,
    code_owner_approval_required: req.tier === 'free' ? false : (bool(req.input.code_owner_approval_required) ?? false),
  };
  protectedBranches(req.db).push(rule);
  return created(presentProtectedBranch(req.db, rule, req.tier));
}

function update(req: SandboxRequest, owner: Owner) {
  const rule = findRule(req, owner);
  const next = structuredClone(rule);
  if (req.input.name !== undefined) {
    const name = String(req.input.name);
    if (!name.trim()) throw errors.invalid('name');
    if (name !== rule.name && ownerRules(req.db, owner).some((r) => r.name === name)) throw new HttpError(422, { message: ['Name has already been taken'] });
    next.name = name;
  }
  const force = bool(req.input.allow_force_push);
  if (force !== undefined) next.allow_force_push = force;
  const owners = bool(req.input.code_owner_approval_required);
  if (owners !== undefined && req.tier !== 'free') next.code_owner_approval_required = owners;
  for (const kind of KINDS) {
    let list = next[LISTS[kind]];
    for (const raw of allowedList(req, kind)) {
      const { id, destroy, entry } = parseItem(kind, raw);
      if (id !== undefined) {
        const index = list.findIndex((e) => e.id === id);
        if (index < 0) throw errors.notFound(`${WORDS[kind]} access level`);
        if (destroy) list = list.filter((e) => e.id !== id);
        else if (entry) list[index] = { ...entry, id };
      } else if (entry) list = [...list, { ...entry, id: 0 }];
    }
    next[LISTS[kind]] = unique(list);
  }
  checkEntries(req.db, owner, next);
  for (const kind of KINDS) for (const entry of next[LISTS[kind]]) if (!entry.id) entry.id = req.db.nextId('protected_branch_access');
  Object.assign(rule, next);
  return ok(presentProtectedBranch(req.db, rule, req.tier));
}

function unprotect(req: SandboxRequest, owner: Owner, project?: Project) {
  const rule = findRule(req, owner);
  if (project && !mayUnprotect(req.db, req.user, project, rule)) throw errors.forbidden();
  protectedBranches(req.db).splice(protectedBranches(req.db).indexOf(rule), 1);
  return noContent();
}

/** A search matches names containing the text. */
const searched = (req: SandboxRequest, rules: ProtectedBranch[]): ProtectedBranch[] => {
  const text = req.query.search === undefined ? '' : String(req.query.search).toLowerCase();
  return text ? rules.filter((rule) => rule.name.toLowerCase().includes(text)) : rules;
};

export const protectedBranchesModule: SandboxModule = {
  routes(api) {
    const project = declared.parents.project.routes;
    const group = declared.parents.group.routes;
    const projectOwner = (req: SandboxRequest): { project: Project } => ({ project: projectFor(req, Role.maintainer) });

    api.route(project.list, (req) => {
      const owner = projectOwner(req);
      const own = ownerRules(req.db, owner).map((rule) => ({ rule, inherited: false }));
      // Premium: the rules of the project's groups apply to it too, and its list shows them.
      const chain = req.tier === 'free' ? [] : groupChain(req.db, projectGroup(req.db, owner.project)?.id ?? null);
      const inherited = protectedBranches(req.db).filter((rule) => rule.group_id !== undefined && chain.some((g) => g.id === rule.group_id)).map((rule) => ({ rule, inherited: true }));
      const rules = [...own, ...inherited].filter(({ rule }) => searched(req, [rule]).length);
      return paginate(req, rules, { present: ({ rule, inherited: from }) => presentProtectedBranch(req.db, rule, req.tier, from) });
    });
    api.route(project.get, (req) => ok(presentProtectedBranch(req.db, findRule(req, projectOwner(req)), req.tier)));
    api.route(project.create, (req) => protect(req, projectOwner(req)));
    api.route(project.update, (req) => update(req, projectOwner(req)));
    api.route(project.delete, (req) => {
      const owner = projectOwner(req);
      return unprotect(req, owner, owner.project);
    });

    const groupOwner = (req: SandboxRequest): { group: Group } => {
      requireTier(req, 'premium');
      return { group: groupFor(req, Role.maintainer) };
    };
    api.route(group.list, (req) => paginate(req, searched(req, ownerRules(req.db, groupOwner(req))), { present: (rule) => presentProtectedBranch(req.db, rule, req.tier) }));
    api.route(group.get, (req) => ok(presentProtectedBranch(req.db, findRule(req, groupOwner(req)), req.tier)));
    api.route(group.create, (req) => protect(req, groupOwner(req)));
    api.route(group.update, (req) => update(req, groupOwner(req)));
    api.route(group.delete, (req) => unprotect(req, groupOwner(req)));
  },

  // The first push to an empty repository creates the default branch: the service protects it then.
  onPush(event, { db }) {
    if (event.branch !== event.project.default_branch || !/^0+$/.test(event.before)) return;
    if (Object.keys(repositoryOf(db, event.project.id).branches).length === 1) protectDefaultBranch(db, event.project);
  },

  seed(db) {
    // Every project's default branch is protected, as a new project's is on the service …
    protectDefaultBranches(db);
    // … and acme/api also protects its release branches: Developers merge, Maintainers push.
    const project = findProject(db, 'acme/api');
    protectedBranches(db).push({
      id: db.nextId('protected_branches'),
      project_id: project.id,
      name: 'release/*',
      push_access_levels: [{ id: db.nextId('protected_branch_access'), access_level: Role.maintainer }],
      merge_access_levels: [{ id: db.nextId('protected_branch_access'), access_level: Role.developer }],
      unprotect_access_levels: [],
      allow_force_push: false,
      code_owner_approval_required: false,
    });
  },
};
