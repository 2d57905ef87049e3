import { placed, type ResourceDef } from '../../api/resource.js';
import { deployTokens } from '../../api/resources/deploy-tokens.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';

export interface OwnerOptions {
  project?: string;
  group?: string;
}

export const ownerOptions: OptionDef[] = [
  { flags: '--project <id|path>', description: 'deploy tokens of this project' },
  { flags: '--group <id|path>', description: 'deploy tokens of this group (they reach every project in it)' },
];

/** Exactly one of --project and --group (a profile's default is never guessed for a token): its routes and place. */
export function ownerOf(opts: OwnerOptions, ctx: Context): { resource: ResourceDef; params: Record<string, string>; where: string } {
  if ((opts.project === undefined) === (opts.group === undefined)) {
    throw new UsageError(opts.project === undefined ? 'whose deploy tokens? give --project ID|PATH or --group ID|PATH' : 'give --project or --group, not both');
  }
  if (opts.project !== undefined) {
    const project = ctx.project(opts.project);
    return { resource: placed(deployTokens, 'project'), params: { project }, where: `project ${project}` };
  }
  const group = ctx.group(opts.group);
  return { resource: placed(deployTokens, 'group'), params: { group }, where: `group ${group}` };
}
