import { allowedEntries, WhoNames } from '../../api/lookups.js';
import { BRANCH_LISTS, branchLevels, parseWho, replaceEntries, whoText, type AccessEntry, type BranchList } from './values.js';
import { placed, routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { projects } from '../projects/resource.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import type { FieldSpec, LiveObject, Owner, SectionIo } from '../../desired/model.js';
import { refuse, specOf } from '../../desired/section.js';
import { collectionSection } from '../../desired/sections/generic.js';

/**
 * Protected branches in a desired-state file, paired by name (wildcards too). Who may push, merge and unprotect is
 * written as the command line writes it (`maintainer`, `no-access`, `user:alice`, `group:acme/devs`,
 * `deploy-key:3`) and compared as a set. The protection the service gives every new project's default branch is
 * adopted: a file that lists the default branch updates that rule (never a second create, which the service refuses
 * with 409); a file that does not list it leaves it alone, even with `prune: all`. A rule naming a user who is being
 * added as a member in the same apply waits until the membership is visible (the members section applies first).
 */

type Kind = BranchList;
const KINDS = BRANCH_LISTS;
const levelsOf = branchLevels;
type Values = Record<string, unknown>;

/** How long a rule waits for the memberships it names, and the first and longest pause between tries. */
export const MEMBER_WAIT = { boundMs: 30_000, firstMs: 250, maxMs: 4_000 };

/** The service's answer when a rule names a user or group that is not (yet) a member of the project or group. */
const notAMember = (error: unknown): boolean =>
  error instanceof ApiError && (error.status === 422 || error.status === 400) && /not a member|does not have access/i.test(error.message);

/**
 * Sends a rule, trying again while the service says a user or group it names is not a member yet (a membership added
 * a moment ago, not yet visible): pauses double from `firstMs` up to `maxMs`, for at most `boundMs` in all; then the
 * service's refusal, with what was waited for.
 */
export async function waitForMembers<T>(send: () => Promise<T>, what: string, wait = MEMBER_WAIT, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
  const started = Date.now();
  let pause = wait.firstMs;
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!notAMember(error)) throw error;
      const waited = Date.now() - started;
      if (waited + pause > wait.boundMs) {
        throw new CliError(`${what}: ${(error as ApiError).message} (still so after waiting ${Math.round(waited / 1000)} s for the membership)`, ExitCode.rejected, 'add the user as a member first (a members section applies before protected_branches), or take them out of the rule');
      }
      await sleep(pause);
      pause = Math.min(pause * 2, wait.maxMs);
    }
  }
}

/** A list of who may push, merge or unprotect, as the file writes it: each checked, written canonically, sorted. */
function whoSpec(kind: Kind): FieldSpec {
  const forms = `user:NAME, group:PATH${kind === 'push' ? ', deploy-key:ID' : ''}`;
  return {
    schema: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    help: `who may ${kind}: roles (${kind === 'unprotect' ? '' : 'no-access, '}developer, maintainer, admin) and ${forms}${kind === 'unprotect' ? '; [] leaves it to Maintainers' : '; [] means no one'}`,
    parse(value, label) {
      if (!Array.isArray(value)) refuse(label, `must be a list such as [maintainer, user:alice]`);
      const texts = (value as unknown[]).map((item) => whoText(parseWho(String(item), label, levelsOf(kind), { deployKeys: kind === 'push' })));
      // No one may push or merge: the service keeps that as a "no access" entry.
      return [...new Set(texts.length || kind === 'unprotect' ? texts : ['no-access'])].sort();
    },
  };
}

const FIELDS = (def: typeof protectedBranches): Record<string, FieldSpec> => ({
  name: specOf(def.fields.name),
  allowed_to_push: whoSpec('push'),
  allowed_to_merge: whoSpec('merge'),
  allowed_to_unprotect: whoSpec('unprotect'),
  allow_force_push: specOf(def.fields.allow_force_push),
  code_owner_approval_required: specOf(def.fields.code_owner_approval_required),
});

/** The names of users and groups by ID, looked up once per run (one client is one run). */
const runNames = new WeakMap<object, WhoNames>();
function namesOf(api: SectionIo['api']): WhoNames {
  let names = runNames.get(api);
  if (!names) runNames.set(api, (names = new WhoNames(api)));
  return names;
}

/** A rule's lists as text, users and groups by name. */
async function liveValues(names: WhoNames, rule: ProtectedBranch): Promise<Values> {
  const list = async (entries: AccessEntry[] | undefined) => [...new Set(await Promise.all((entries ?? []).map((entry) => names.of(entry))))].sort();
  return {
    name: rule.name,
    allowed_to_push: await list(rule.push_access_levels),
    allowed_to_merge: await list(rule.merge_access_levels),
    allowed_to_unprotect: await list(rule.unprotect_access_levels),
    allow_force_push: rule.allow_force_push ?? false,
    code_owner_approval_required: rule.code_owner_approval_required ?? false,
  };
}

/** The users and groups a rule names, for the member-wait message. */
const named = (desired: Values): string[] => [...new Set(KINDS.flatMap((kind) => ((desired[`allowed_to_${kind}`] as string[] | undefined) ?? []).filter((who) => /^(user|group):/.test(who))))];

function sectionFor(key: 'project' | 'group') {
  const def = placed(protectedBranches, key);
  const where = (owner: Owner) => ({ [key]: owner.path });
  const waitFor = (owner: Owner, desired: Values) => `protected branch "${String(desired.name)}" of ${key} ${owner.path} names ${named(desired).join(', ') || 'no user or group'}`;

  /** The service's entries of the lists the file gives. */
  const entriesOf = async (io: SectionIo, desired: Values) =>
    Object.fromEntries(await Promise.all(KINDS.filter((kind) => desired[`allowed_to_${kind}`] !== undefined).map(async (kind) => {
      const whos = (desired[`allowed_to_${kind}`] as string[]).map((text) => parseWho(text, `allowed_to_${kind}`, levelsOf(kind), { deployKeys: true }));
      return [kind, await allowedEntries(io.api, whos)] as const;
    })));

  const section = collectionSection(def, {
    key: 'protected_branches',
    help: key === 'project'
      ? "Protected branches, paired by name (wildcards such as release/* too). The default branch's protection, which the service creates with the project, is updated when listed and left alone when not (even with prune: all)."
      : 'Protected branches of the group (Premium), paired by name: they apply to every project of the group.',
    fields: FIELDS(protectedBranches),
    required: ['name'],
    overrides: {
      async read(io, owner) {
        const names = namesOf(io.api);
        const live: LiveObject[] = [];
        for await (const rule of io.api.list<ProtectedBranch>(routeOf(def, 'list'), where(owner), { all: true })) {
          if (rule.inherited) continue; // a group's rule, shown in its projects' lists: the group's file manages it
          live.push({ key: rule.name, values: await liveValues(names, rule), ref: { name: rule.name } });
        }
        return live;
      },
      async create(io, owner, desired) {
        const entries = await entriesOf(io, desired);
        const body: Values = { name: desired.name, allow_force_push: desired.allow_force_push, code_owner_approval_required: desired.code_owner_approval_required };
        for (const [kind, list] of Object.entries(entries)) {
          // A role goes as the level too: editions without allowed_to_* (Free) take it that way.
          const role = list.find((entry) => 'access_level' in entry);
          if (role && 'access_level' in role) body[`${kind}_access_level`] = role.access_level;
          if (list.some((entry) => !('access_level' in entry)) || list.filter((entry) => 'access_level' in entry).length > 1) body[`allowed_to_${kind}`] = list;
        }
        await waitForMembers(() => io.api.call(routeOf(def, 'create'), { ...where(owner), ...body }), waitFor(owner, desired));
      },
    },
  });
  section.update = async (io, owner, live, changed, desired) => {
        const current = await io.api.call<ProtectedBranch>(routeOf(def, 'get'), { ...where(owner), name: live.ref!.name });
        const entries = await entriesOf(io, Object.fromEntries(changed.filter((name) => name.startsWith('allowed_to_')).map((name) => [name, desired[name]])));
        const body: Values = {};
        for (const name of changed) if (!name.startsWith('allowed_to_')) body[name] = desired[name];
        for (const [kind, list] of Object.entries(entries)) body[`allowed_to_${kind}`] = replaceEntries(current[`${kind as Kind}_access_levels`] ?? [], list);
        await waitForMembers(() => io.api.call(routeOf(def, 'update'), { ...where(owner), name: live.ref!.name, ...body }), waitFor(owner, desired));
  };
  if (key === 'group') section.tier = 'premium';
  // What a plan's reviewer weighs before an unprotect: the rules that stop pushes, force pushes and deletions go.
  section.lostWithDelete = (object) => `unprotected, ${object.key.includes('*') ? 'the branches it matches take' : 'the branch takes'} pushes, force pushes and deletion from every Developer`;
  if (key === 'project') {
    // The default branch's protection is the service's: adopted when listed, never pruned.
    section.keep = (owner, object) => object.key === owner.defaultBranch;
    const unprotect = section.remove!;
    // Whatever a plan says (a saved one may be old, or edited): the project's default branch, as it is now, keeps its protection.
    section.remove = async (io, owner, live) => {
      const project = await io.api.call<{ default_branch?: string | null }>(projects.routes.get, { project: owner.path });
      if (project.default_branch && live.ref?.name === project.default_branch) {
        throw new CliError(`forgectl never removes the protection of the default branch (${project.default_branch}) of project ${owner.path}`, ExitCode.rejected, `if that is really meant: forgectl protected-branches unprotect ${project.default_branch} --project ${owner.path}`);
      }
      return unprotect(io, owner, live);
    };
  }
  return section;
}

export const projectProtectedBranchesSection = sectionFor('project');
export const groupProtectedBranchesSection = sectionFor('group');
