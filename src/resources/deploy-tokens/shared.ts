import type { MultiParentDef, ResourceDef } from '../../api/resource.js';
import { deployTokens } from './resource.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { placementFor } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';

/** Deploy tokens a project or a group owns (created and revoked there; the instance only lists them). */
export const ownedTokens: MultiParentDef = { ...deployTokens, parents: { project: deployTokens.parents.project, group: deployTokens.parents.group } };

export interface OwnerOptions {
  project?: string;
  group?: string;
}

export const ownerOptions: OptionDef[] = [
  { flags: '--project <id|path>', description: "deploy tokens of this project (default: the profile's default_project)" },
  { flags: '--group <id|path>', description: "deploy tokens of this group, which reach every project in it (default: the profile's default_group)" },
];

/** --project or --group (else the profile's default_project, then its default_group): its routes and place. */
export function ownerOf(opts: OwnerOptions, ctx: Context): { resource: ResourceDef; params: Record<string, unknown>; where: string } {
  if (opts.project !== undefined && opts.group !== undefined) throw new UsageError('give --project or --group, not both');
  const { resource, params, where } = placementFor(ownedTokens, opts, ctx);
  return { resource, params, where };
}
