import { GraphQLError } from 'graphql';
import { globalId, idOfGlobalId } from '../../api/global-id.js';
import { BULK_DELETE_LIMIT } from '../../resources/runners/resource.js';
import { findGroup, findProject, findUser, groupVisible, memberRoleInProject, projectVisible } from '../auth.js';
import { matches } from '../listing.js';
import { descendantGroups, groupById } from '../hierarchy.js';
import type { SandboxRequest } from '../http.js';
import { groups, projects, runnerTable, type Group, type Project, type Runner, type User } from '../model.js';
import { presentGroup, presentProject, presentUserBasic } from '../present.js';
import { deleteRefusal, manages, removeRunner, runnerStatus, upgradeStatus } from '../runners.js';
import { filterUsers } from '../users.js';
import { connection, type Order, type PageArguments } from './connection.js';

/**
 * What the sandbox's GraphQL fields answer, over the same records and permissions as its REST routes: the root
 * fields of Query and Mutation, and the objects they present (plain objects whose functions resolve the fields that
 * take arguments).
 */

export interface GraphqlContext {
  req: SandboxRequest;
}

type Args = Record<string, any>;

/** The service's own words for a record the caller may not see or change, and for a mutation it may not run. */
export const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";


const CREATED_DESC = { field: 'created_at', descending: true } as const;
const ID_ASC = { descending: false } as const;

/*
 * The nodes are the REST records (present.ts) with what GraphQL has beside or instead of them: a field the node does
 * not have under its GraphQL name is read under the REST one (engine.ts: webUrl is web_url).
 */

function userNode(user: User, req: SandboxRequest): Record<string, unknown> {
  return {
    ...presentUserBasic(user, req.rootUrl),
    id: globalId('User', user.id),
    bot: user.bot,
    publicEmail: user.public_email || null,
    location: user.location || null,
    webPath: `/${user.username}`,
    createdAt: user.created_at,
    lastActivityOn: user.last_activity_on ?? null,
    userPermissions: { createSnippet: req.user?.id === user.id },
  };
}

function projectNode(project: Project, req: SandboxRequest): Record<string, unknown> {
  const group = project.namespace_id ? groupById(req.db, project.namespace_id) : undefined;
  return {
    ...presentProject(req, project, { simple: true }),
    id: globalId('Project', project.id),
    fullPath: project.path_with_namespace,
    archived: Boolean(project.archived),
    group: () => (group ? groupNode(group, req) : null),
  };
}

function groupNode(group: Group, req: SandboxRequest): Record<string, unknown> {
  return {
    ...presentGroup(req, group),
    id: globalId('Group', group.id),
    description: group.description ?? '',
    parent: () => {
      const parent = groupById(req.db, group.parent_id);
      return parent && groupVisible(req, parent) ? groupNode(parent, req) : null;
    },
    projects: (args: Args) => {
      const ids = new Set([group.id, ...(args.includeSubgroups ? descendantGroups(req.db, group.id).map((g) => g.id) : [])]);
      const list = projects(req.db).filter((p) => ids.has(p.namespace_id) && projectVisible(req, p) && found(args.search, p.name, p.path));
      return connection(list, args, CREATED_DESC, (p) => projectNode(p, req));
    },
  };
}

/** A runner: its stored record, with the enums in capitals and what the service derives. */
function runnerNode(runner: Runner, req: SandboxRequest): Record<string, unknown> {
  const group = runner.group_id === null ? undefined : groupById(req.db, runner.group_id);
  return {
    ...runner,
    runnerType: runner.runner_type.toUpperCase(),
    status: runnerStatus(runner, req.now()).toUpperCase(),
    active: !runner.paused,
    accessLevel: runner.access_level.toUpperCase(),
    // A licensed feature (runner upgrade management): null on the free tier.
    upgradeStatus: req.tier === 'free' ? null : upgradeStatus(runner.version),
    projectCount: runner.runner_type === 'project_type' ? runner.project_ids.length : null,
    adminUrl: req.user?.is_admin ? `${req.rootUrl}/admin/runners/${runner.id}` : null,
    groups: (args: Args) => (runner.runner_type === 'group_type' ? connection(group ? [group] : [], args, ID_ASC, (g) => groupNode(g, req)) : null),
    projects: (args: Args) => {
      if (runner.runner_type !== 'project_type') return null;
      const list = projects(req.db).filter((p) => runner.project_ids.includes(p.id) && projectVisible(req, p));
      return connection(list, args, ID_ASC, (p) => projectNode(p, req));
    },
  };
}

/** No search, or one the values match. */
const found = (search: unknown, ...values: Array<string | null | undefined>): boolean => !search || matches(search, ...values);

/** A record's numeric id from a global ID of `ids: [ID!]` (other models, and what is no global ID, match nothing). */
const idsOf = (model: Parameters<typeof globalId>[0], values: string[] | null | undefined): number[] | undefined => values?.map((value) => idOfGlobalId(model, value) ?? 0);

/** Looks up a record by path or id; one the caller may not see is null, as the service answers it. */
function visibleOrNull<T>(find: () => T, visible: (record: T) => boolean): T | null {
  try {
    const record = find();
    return visible(record) ? record : null;
  } catch {
    return null;
  }
}

/** A CiRunnerSort value (CONTACTED_ASC …) as the order it names: by contacted_at or created_at, either way. */
const runnerOrder = (sort: string): Order<Runner> => ({ field: sort.startsWith('CONTACTED') ? 'contacted_at' : 'created_at', descending: sort.endsWith('DESC') });

function listRunners(args: Args & PageArguments, req: SandboxRequest): Record<string, unknown> {
  // Every runner of the instance is for administrators; anyone else gets none (the service's finder answers nothing).
  const all = req.user?.is_admin ? runnerTable(req.db) : [];
  const list = all.filter(
    (r) =>
      (args.paused === undefined || args.paused === null || r.paused === args.paused) &&
      (!args.status || runnerStatus(r, req.now()).toUpperCase() === args.status) &&
      (!args.type || r.runner_type.toUpperCase() === args.type) &&
      (args.tagList ?? []).every((tag: string) => r.tag_list.includes(tag)) &&
      (!args.search || r.token === args.search || found(args.search, r.description)) &&
      (!args.upgradeStatus || (req.tier !== 'free' && upgradeStatus(r.version) === args.upgradeStatus)),
  );
  return connection(list, args, runnerOrder(args.sort ?? 'CREATED_DESC'), (r) => runnerNode(r, req));
}

/**
 * bulkRunnerDelete as the service's bulk delete service does it: the first 50 runners of the ids given (the others
 * ignored, and said so), those the caller may delete deleted, the others named in `errors`. Unknown ids are left out.
 */
function bulkRunnerDelete(input: { ids?: number[] | null }, req: SandboxRequest): Record<string, unknown> {
  if (!input.ids) return { errors: [] };
  const found = runnerTable(req.db).filter((r) => input.ids!.includes(r.id)).sort((a, b) => a.id - b.id);
  const considered = found.slice(0, BULK_DELETE_LIMIT);
  const allowed = considered.filter((r) => !deleteRefusal(req.db, req.user!, r));
  const refused = considered.filter((r) => !allowed.includes(r));
  for (const runner of allowed) removeRunner(req.db, runner);
  const errors: string[] = [];
  if (found.length > BULK_DELETE_LIMIT) errors.push(`Can only delete up to ${BULK_DELETE_LIMIT} runners per call. Ignored the remaining runner(s).`);
  if (!allowed.length) errors.push('User does not have permission to delete any of the runners');
  else if (refused.length) errors.push(`User does not have permission to delete runner(s) ${refused.map((r) => `#${r.id}`).join(', ')}`);
  return { deletedCount: allowed.length, deletedIds: allowed.map((r) => r.id), errors };
}

/** Whether the request may change data: signed in, with a token that may write (not read_api alone). */
function mayWrite(req: SandboxRequest): boolean {
  const token = req.token;
  return Boolean(req.user) && (!token || token.kind !== 'personal' || token.scopes.includes('api'));
}

/** The root value: Query's and Mutation's fields. */
export const root = {
  currentUser: (_: Args, { req }: GraphqlContext) => (req.user ? userNode(req.user, req) : null),
  user: (args: Args, { req }: GraphqlContext) => {
    if ((args.id === undefined || args.id === null) === (args.username === undefined || args.username === null)) throw new GraphQLError('Provide either a single username or id');
    const user = visibleOrNull(() => findUser(req.db, String(args.id ?? args.username)), (u) => req.user?.is_admin || !u.bot);
    return user ? userNode(user, req) : null;
  },
  users: (args: Args, { req }: GraphqlContext) => {
    const ids = idsOf('User', args.ids);
    const names = (args.usernames as string[] | null | undefined)?.map((name) => name.toLowerCase());
    const list = filterUsers({ ...req, query: args.search ? { search: args.search } : {} }).filter(
      (u) => (!ids || ids.includes(u.id)) && (!names || names.includes(u.username.toLowerCase())) && (!args.admins || !req.user?.is_admin || u.is_admin),
    );
    const order: Order<User> = { field: /updated/i.test(args.sort) ? 'updated_at' : 'created_at', descending: /desc/i.test(args.sort) };
    return connection(list, args, order, (u) => userNode(u, req));
  },
  project: (args: Args, { req }: GraphqlContext) => {
    const project = visibleOrNull(() => findProject(req.db, String(args.fullPath)), (p) => projectVisible(req, p));
    return project ? projectNode(project, req) : null;
  },
  projects: (args: Args, { req }: GraphqlContext) => {
    const ids = idsOf('Project', args.ids);
    const list = projects(req.db).filter(
      (p) =>
        projectVisible(req, p) &&
        (!args.membership || (req.user !== undefined && memberRoleInProject(req.db, req.user, p) > 0)) &&
        (!ids || ids.includes(p.id)) &&
        found(args.search, p.name, p.path, p.description),
    );
    return connection(list, args, { descending: true }, (p) => projectNode(p, req));
  },
  group: (args: Args, { req }: GraphqlContext) => {
    const group = visibleOrNull(() => findGroup(req.db, String(args.fullPath)), (g) => groupVisible(req, g));
    return group ? groupNode(group, req) : null;
  },
  groups: (args: Args, { req }: GraphqlContext) => {
    const list = groups(req.db).filter((g) => groupVisible(req, g) && found(args.search, g.name, g.full_path));
    return connection(list, args, ID_ASC, (g) => groupNode(g, req));
  },
  runner: (args: Args, { req }: GraphqlContext) => {
    const runner = runnerTable(req.db).find((r) => r.id === args.id);
    return runner && req.user && manages(req.db, req.user, runner) ? runnerNode(runner, req) : null;
  },
  runners: (args: Args, { req }: GraphqlContext) => listRunners(args, req),
  bulkRunnerDelete: (args: Args, { req }: GraphqlContext) => {
    // Mutations need a signed-in user whose token may write.
    if (!mayWrite(req)) throw new GraphQLError(NOT_AVAILABLE);
    return { ...bulkRunnerDelete(args.input, req), clientMutationId: args.input.clientMutationId ?? null };
  },
};
