import { auditEvents, type AuditEvent } from './resource.js';
import { row } from './row.js';
import { userIds } from '../../api/lookups.js';
import { projects } from '../projects/resource.js';
import { groups } from '../groups/resource.js';
import { placed } from '../../api/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { groupOption, projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { parseMoment } from '../../parse.js';

interface Options {
  group?: string;
  project?: string;
  since?: string;
  until?: string;
  entity?: string;
  author?: string;
}

const ENTITY_TYPES: Record<string, string> = { user: 'User', group: 'Group', project: 'Project', instance: 'Gitlab::Audit::InstanceScope' };

/** --entity TYPE[:ID]: user, group, project (an ID or a path) or instance. */
function parseEntity(value: string): { type: string; id?: string } {
  const [kind, ...rest] = value.split(':');
  const type = ENTITY_TYPES[kind.toLowerCase()];
  const id = rest.join(':');
  if (!type) throw new UsageError(`--entity must be user, group, project or instance, optionally with :ID (project:acme/api, user:alice), got "${value}"`);
  if (rest.length && !id) throw new UsageError(`--entity ${value}: give an ID or path after the colon`);
  return { type, id: id || undefined };
}

/** The entity's numeric ID: a user's name, a group's or project's path is looked up. */
async function entityId(ctx: Context, entity: { type: string; id?: string }): Promise<number | undefined> {
  if (entity.id === undefined) return undefined;
  if (/^\d+$/.test(entity.id)) return Number(entity.id);
  if (entity.type === 'User') return (await userIds(ctx.api, [entity.id]))[0];
  const record = entity.type === 'Project' ? ctx.api.call<{ id: number }>(projects.routes.get, { project: entity.id }) : ctx.api.call<{ id: number }>(groups.routes.get, { group: entity.id });
  return (await record).id;
}

export default defineCommand<Options>({
  effect: 'read',
  description:
    'Newest first. Without --group or --project, the instance-wide list (administrators). Needs Premium; the group list needs the Owner role, ' +
    'the project list the Maintainer role. --since and --until are sent to the service; --author is matched here.',
  examples: [
    'forgectl audit-events list --project acme/api --since 7d',
    'forgectl audit-events list --group acme --author alice -o json',
    'forgectl audit-events list --entity project:acme/api --since 2026-01-01 --all',
  ],
  options: [
    groupOption,
    projectOption,
    { flags: '--since <when>', description: 'only events since then: a duration back from now (24h, 7d, 2w) or a date-time' },
    { flags: '--until <when>', description: 'only events until then: a duration back from now or a date-time' },
    { flags: '--entity <type[:id]>', description: 'instance list only: events of user, group, project or instance (project:acme/api, user:alice or user:5)', parse: parseEntity },
    { flags: '--author <user>', description: 'only events by this user (username or ID)' },
  ],
  list: true,
  columns: auditEvents.columns,
  recordFields: [...Object.keys(auditEvents.fields), ...auditEvents.computed],
  async run(opts, ctx) {
    const entity = opts.entity as unknown as { type: string; id?: string } | undefined;
    if (opts.group !== undefined && opts.project !== undefined) throw new UsageError('give either --group or --project, not both');
    if (entity && (opts.group !== undefined || opts.project !== undefined)) throw new UsageError('--entity filters the instance-wide list; a group or project list holds only its own events');
    const now = ctx.now();
    const since = opts.since === undefined ? undefined : parseMoment('--since', opts.since, now);
    const until = opts.until === undefined ? undefined : parseMoment('--until', opts.until, now);
    if (since && until && since > until) throw new UsageError(`--since (${since}) is after --until (${until})`);
    const author = opts.author === undefined ? undefined : await userIds(ctx.api, [opts.author]).catch((error: unknown) => {
      throw error instanceof UsageError ? new UsageError(error.message, 'check the name with: forgectl users list') : error;
    });

    const key = opts.project !== undefined ? 'project' : opts.group !== undefined ? 'group' : 'instance';
    const resource = placed(auditEvents, key);
    const params: Record<string, unknown> = { created_after: since, created_before: until };
    if (key === 'project') params.project = ctx.project(opts.project);
    if (key === 'group') params.group = ctx.group(opts.group);
    if (entity) Object.assign(params, { entity_type: entity.type, entity_id: await entityId(ctx, entity) });
    const list = ctx.api.list<AuditEvent>(resource.routes.list!, params, ctx.paging).map(row);
    return author ? list.filter((event) => event.author_id === author[0]) : list;
  },
});
