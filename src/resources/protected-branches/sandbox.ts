import { findProject, memberRoleInGroup, memberRoleInProject, requireTier, Role } from '../../sandbox/auth.js';
import { crudModule, type Where } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { bool, errors, HttpError, type SandboxRequest } from '../../sandbox/http.js';
import { groups, protectedBranches, users, type CreateAccess, type Group, type Project, type ProtectedBranch } from '../../sandbox/model.js';
import { deployKeysOf, mayUnprotect, protectDefaultBranch, protectionComputed, uniqueEntries } from '../../sandbox/protection.js';
import { protectDefaultBranches } from '../../sandbox/review.js';
import { repositoryOf } from '../../sandbox/git/repository.js';
import { descendantGroups, groupChain, projectGroup } from '../../sandbox/hierarchy.js';
import { protectedBranches as declared } from './resource.js';
import { BRANCH_LISTS, branchLevels, type BranchList } from './values.js';

/**
 * Protected branches of projects and (Premium) of groups, served from their declaration: list (with search; a
 * project's list shows its groups' rules as inherited), get by name or wildcard, protect (409 when the name is
 * protected already), update with PATCH (entries added, changed by id, removed with `_destroy`), unprotect. Who may
 * push and merge is enforced by the repository modules through ../../sandbox/protection.ts.
 */

const LISTS = { push: 'push_access_levels', merge: 'merge_access_levels', unprotect: 'unprotect_access_levels' } as const;
const WORDS = { push: 'Push', merge: 'Merge', unprotect: 'Unprotect' } as const;

/** A rule's access entries, one list per kind. */
type Lists = Pick<ProtectedBranch, 'push_access_levels' | 'merge_access_levels' | 'unprotect_access_levels'>;

/** Where a rule lives: a project (its members, shared groups and deploy keys may be named) or a group. */
type Owner = { project: Project } | { group: Group };

function ownerRules(db: Db, owner: Owner): ProtectedBranch[] {
  return protectedBranches(db).filter((rule) => ('project' in owner ? rule.project_id === owner.project.id : rule.group_id === owner.group.id));
}

/** The problem with a user, group or deploy key entry, as the service words it; undefined when it may be named. */
function entryProblem(db: Db, owner: Owner, kind: BranchList, entry: CreateAccess): string | undefined {
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
function parseItem(kind: BranchList, raw: unknown): { id?: number; destroy: boolean; entry?: Omit<CreateAccess, 'id'> } {
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
    if (!branchLevels(kind).includes(value)) throw errors.invalid(`${param}[access_level]`);
    return { id, destroy, entry: { access_level: value } };
  }
  return { id, destroy, entry: { access_level: Role.maintainer, [keys[0]]: value } };
}

function level(req: SandboxRequest, kind: BranchList): number | undefined {
  const raw = req.input[`${kind}_access_level`];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!branchLevels(kind).includes(value)) throw errors.invalid(`${kind}_access_level`);
  return value;
}

function allowedList(req: SandboxRequest, kind: BranchList): unknown[] {
  const raw = req.input[`allowed_to_${kind}`];
  if (raw === undefined || raw === null || req.tier === 'free') return []; // the free edition does not know the parameter
  if (!Array.isArray(raw)) throw errors.invalid(`allowed_to_${kind}`);
  return raw;
}

function checkEntries(db: Db, owner: Owner, rule: Lists): void {
  const problems = BRANCH_LISTS.flatMap((kind) => rule[LISTS[kind]].map((entry) => entryProblem(db, owner, kind, entry)).filter((p): p is string => Boolean(p)));
  // Save failures are 422 with the model's full messages.
  if (problems.length) throw new HttpError(422, { message: [...new Set(problems)] });
}

const ownerOf = ({ placement, parent }: Where): Owner => (placement.parent === 'project' ? { project: parent as Project } : { group: parent as Group });

/** The entries of a new rule, from the levels and `allowed_to_*` lists given. */
function newLists(req: SandboxRequest): Lists {
  return Object.fromEntries(BRANCH_LISTS.map((kind) => {
    const given = level(req, kind);
    const allowed = allowedList(req, kind).map((item) => parseItem(kind, item).entry).filter((e): e is Omit<CreateAccess, 'id'> => Boolean(e));
    // Without a level or entries, pushing and merging default to Maintainers; unprotecting to those who may protect.
    const base = given !== undefined ? [{ access_level: given }] : allowed.length || kind === 'unprotect' ? [] : [{ access_level: Role.maintainer }];
    return [LISTS[kind], uniqueEntries([...base, ...allowed]).map((entry) => ({ ...entry, id: 0 }))];
  })) as Lists;
}

/** The entries of a rule after a PATCH: added, changed by id, removed with `_destroy`. */
function patchedLists(req: SandboxRequest, rule: Lists): Lists {
  return Object.fromEntries(BRANCH_LISTS.map((kind) => {
    let list = [...rule[LISTS[kind]]];
    for (const raw of allowedList(req, kind)) {
      const { id, destroy, entry } = parseItem(kind, raw);
      if (id !== undefined) {
        const index = list.findIndex((e) => e.id === id);
        if (index < 0) throw errors.notFound(`${WORDS[kind]} access level`);
        if (destroy) list = list.filter((e) => e.id !== id);
        else if (entry) list[index] = { ...entry, id };
      } else if (entry) list = [...list, { ...entry, id: 0 }];
    }
    return [LISTS[kind], uniqueEntries(list)];
  })) as Lists;
}

/** The name of a rule: not blank, and no other rule of its owner's (409 on protect, 422 on a rename). */
function checkName(req: SandboxRequest, rule: ProtectedBranch, previous: ProtectedBranch | undefined, owner: Owner): void {
  if (!rule.name.trim()) throw errors.invalid('name');
  if (rule.name === previous?.name || !ownerRules(req.db, owner).some((r) => r.name === rule.name)) return;
  throw previous ? new HttpError(422, { message: ['Name has already been taken'] }) : errors.message(409, `Protected branch '${rule.name}' already exists`);
}

export const protectedBranchesModule = crudModule<ProtectedBranch>(declared, {
  notFound: '',
  // The free edition refuses group rules before it looks for the group.
  guard: (req, { placement }) => placement.tier && requireTier(req, placement.tier),
  // Premium: the rules of a project's groups apply to it too, and its list shows them, after its own.
  listed(own, req, { placement, parent }) {
    if (placement.parent !== 'project' || req.tier === 'free') return own;
    const chain = groupChain(req.db, projectGroup(req.db, parent as Project)?.id ?? null);
    return [...own, ...protectedBranches(req.db).filter((rule) => rule.group_id !== undefined && chain.some((g) => g.id === rule.group_id))];
  },
  filters: { search: (rule, text) => rule.name.toLowerCase().includes(String(text).toLowerCase()) },
  validate(rule, req, previous, where) {
    const owner = ownerOf(where);
    if (previous && req.input.name !== undefined) rule.name = String(req.input.name);
    checkName(req, rule, previous, owner);
    // The free edition knows no code owners.
    if (req.tier === 'free') rule.code_owner_approval_required = previous?.code_owner_approval_required ?? false;
    Object.assign(rule, previous ? patchedLists(req, previous) : newLists(req));
    checkEntries(req.db, owner, rule);
    for (const kind of BRANCH_LISTS) for (const entry of rule[LISTS[kind]]) if (!entry.id) entry.id = req.db.nextId('protected_branch_access'); // numbered once accepted
  },
  computed: (rule, req, _parent, { placement }) => protectionComputed(req.db, rule, req.tier, placement.parent === 'project' && rule.group_id !== undefined),
  beforeDelete(rule, req, { placement, parent }) {
    if (placement.parent === 'project' && !mayUnprotect(req.db, req.user, parent as Project, rule)) throw errors.forbidden();
  },
  // The first push to an empty repository creates the default branch: the service protects it then.
  onPush(event, { db }) {
    if (event.branch !== event.project.default_branch || !/^0+$/.test(event.before)) return;
    if (Object.keys(repositoryOf(db, event.project.id).branches).length === 1) protectDefaultBranch(db, event.project);
  },
  seed(db, _context, insert) {
    // Every project's default branch is protected, as a new project's is on the service …
    protectDefaultBranches(db);
    // … and acme/api also protects its release branches: Developers merge, Maintainers push.
    insert(findProject(db, 'acme/api').id, {
      name: 'release/*',
      push_access_levels: [{ id: db.nextId('protected_branch_access'), access_level: Role.maintainer }],
      merge_access_levels: [{ id: db.nextId('protected_branch_access'), access_level: Role.developer }],
      unprotect_access_levels: [],
    }, 'project');
  },
});
