import { defineCommand } from '../../cli/command.js';
import { projects as declaredProjects } from '../../resources/projects/resource.js';
import { groups } from '../../resources/groups/resource.js';
import { parseList, plural, pluralNoun } from '../../parse.js';
import { exportedSections, exportState, schemaModeline, shippedSchema } from '../../desired/export.js';
import { checkWritableTarget, writeFileAtomically } from '../../files.js';
import { localFiles } from '../../desired/file.js';
import { sectionIo } from './io.js';
import type { Owner } from '../../desired/model.js';
import { UsageError } from '../../errors.js';
import { selectProjects } from '../../fleet/select.js';
import { TextResult } from '../../output/result.js';
import { concurrencyOf, type TargetFlags } from './shared.js';
import { concurrencyOption, shardOptions } from '../../cli/fleet-options.js';
import type { FleetRun } from '../../fleet/select.js';
import { emptyShardLine, resolveShard, startBudget, takeShard } from '../../fleet/shard.js';

interface Options extends Pick<TargetFlags, 'concurrency'>, Pick<FleetRun, 'shard' | 'shardTotal' | 'rateLimit'> {
  project?: string;
  group?: string;
  recursive?: boolean;
  instance?: boolean;
  kinds?: string[];
  outputFile?: string;
}

const KINDS = [...new Set([...exportedSections('project'), ...exportedSections('group'), ...exportedSections('instance')].map((section) => section.key))];

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Writes the current configuration as a desired-state file to start from (YAML on stdout; -o json for JSON, which is YAML too):',
    'every project of --group (with --recursive those of its subgroups; archived ones are left out) or --project, the group and its',
    'subgroups with their integrations, or with --instance the application settings and the default plan limits.',
    'Write-only values (webhook secrets, credentials) are never returned by the service, so they are not exported: add them as',
    '{env: …}, {file: …} or {command: …}. Repository files, secure files and access token policies are not exported.',
    'A protected or file variable\'s value (a kubeconfig) is written as {env: …} too, named in a note: plan reads it to compare.',
    'Planned at once against the same instance, with those set, the file shows no changes.',
  ].join(' '),
  examples: [
    'forgectl export --group acme --recursive > desired.yaml && forgectl plan -f desired.yaml',
    'forgectl export --project acme/api --kinds push_rule,protected_tags,hooks',
    'forgectl export --instance > instance.yaml',
  ],
  options: [
    { flags: '--project <id|path>', description: 'one project' },
    { flags: '--group <id|path>', description: 'the projects of a group (and the group itself)' },
    { flags: '--recursive', description: 'with --group: its subgroups and their projects too' },
    { flags: '--instance', description: 'the application settings and plan limits (administrators)' },
    { flags: '--kinds <list>', description: `only these sections: ${KINDS.join(', ')}`, parse: parseList },
    { flags: '-O, --output-file <path>', description: 'write the file there (whole, once complete) instead of on stdout; its schema line then names the schema relative to it', localFile: true },
    concurrencyOption,
    ...shardOptions,
  ],
  async run(opts, ctx) {
    // A desired-state file is one nested document: rows of CSV or NDJSON cannot hold it, nor could plan read them.
    if (ctx.format === 'csv' || ctx.format === 'ndjson') throw new UsageError(`export writes a desired-state file, which -o ${ctx.format} cannot hold`, 'leave out -o for YAML, or give -o json');
    const chosen = [opts.project !== undefined, opts.group !== undefined, Boolean(opts.instance)].filter(Boolean).length;
    if (chosen !== 1) throw new UsageError(chosen ? 'give one of --project, --group and --instance' : 'what to export? give --project P, --group G [--recursive] or --instance');
    if (opts.recursive && opts.group === undefined) throw new UsageError('--recursive goes with --group');
    if ((opts.shard || opts.shardTotal !== undefined) && opts.group === undefined) throw new UsageError('--shard goes with --group: one project or the instance is not split');
    // A shard of a parallel job exports its part of the group's projects and subgroups (the group itself goes with shard 1).
    const shard = opts.group !== undefined ? resolveShard(opts, ctx.env) : undefined;
    const unknown = (opts.kinds ?? []).filter((kind) => !KINDS.includes(kind));
    if (unknown.length) throw new UsageError(`unknown ${pluralNoun(unknown.length, 'kind')} ${unknown.join(', ')}`, `known: ${KINDS.join(', ')}`);
    if (opts.outputFile !== undefined) checkWritableTarget(opts.outputFile);
    // -O: the file written whole (YAML, or JSON with -o json), nothing on stdout.
    const written = (text: string, json?: object) => {
      if (opts.outputFile === undefined) return json ?? new TextResult(text);
      writeFileAtomically(opts.outputFile, text);
      ctx.io.note(`wrote ${opts.outputFile}`);
      return undefined;
    };

    let owners: Owner[] = [];
    let target: string | undefined;
    if (opts.instance) owners.push({ level: 'instance', path: '' });
    else if (opts.project !== undefined) {
      const project = await ctx.api.call<{ id: number; path_with_namespace: string; default_branch?: string | null }>(declaredProjects.routes.get, { project: opts.project });
      owners.push({ level: 'project', path: project.path_with_namespace, id: project.id, defaultBranch: project.default_branch ?? undefined });
      target = project.path_with_namespace;
    } else {
      const group = await ctx.api.call<{ id: number; full_path: string }>(groups.routes.get, { group: opts.group });
      owners.push({ level: 'group', path: group.full_path, id: group.id });
      if (opts.recursive) {
        for await (const sub of ctx.api.list<{ id: number; full_path: string }>(groups.routes.descendants, { group: group.full_path }, { all: true })) owners.push({ level: 'group', path: sub.full_path, id: sub.id });
      }
      for (const project of await selectProjects(ctx, { group: group.full_path, recursive: opts.recursive })) {
        owners.push({ level: 'project', path: project.path, id: project.id, defaultBranch: project.defaultBranch });
      }
      target = opts.recursive ? `${group.full_path}/**` : `${group.full_path}/*`;
      const root = group.full_path;
      owners = takeShard(owners, (owner) => (owner.path === root ? '' : owner.path), shard, (line) => ctx.io.note(line), 'projects and groups');
      if (shard && !owners.length) {
        ctx.io.note(emptyShardLine(shard));
        const empty = { version: 1, target };
        return ctx.format !== 'table' && ctx.format !== 'yaml' ? written(`${JSON.stringify(empty, null, 2)}\n`, empty) : written(`version: 1\ntarget: ${target}\n`);
      }
    }
    const concurrency = concurrencyOf(opts);
    const budget = startBudget(ctx.rateGate, concurrency, opts.rateLimit, shard);
    if (budget) ctx.io.note(budget);
    const io = sectionIo(ctx, localFiles('.'), process.cwd());
    const { document, notes } = await exportState(io, { owners, kinds: opts.kinds, target, concurrency });
    for (const note of notes) ctx.io.note(`note: ${note}`);
    const projects = Object.keys((document.projects as Record<string, unknown> | undefined) ?? {}).length;
    ctx.io.note(`exported ${projects ? plural(projects, 'project') : ''}${document.groups ? `${projects ? ', ' : ''}${plural(Object.keys(document.groups).length, 'group')}` : ''}${document.instance ? `${projects || document.groups ? ' and ' : ''}the instance` : ''}`);
    if (ctx.format !== 'table' && ctx.format !== 'yaml') return written(`${JSON.stringify(document, null, 2)}\n`, document);
    const { stringify } = (await import('yaml')).default;
    const header = `${schemaModeline(shippedSchema(), opts.outputFile)}# Exported by forgectl from ${new URL(ctx.connection().rootUrl).host} at ${ctx.now().toISOString()}\n`;
    return written(header + stringify(document, { lineWidth: 0 }));
  },
});
