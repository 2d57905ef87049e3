import { defineCommand, type CommandDef, type OptionDef } from './command.js';
import { projectOption } from './options.js';
import { parseInteger } from '../parse.js';

export interface ProjectDeleteSpec<O> {
  /** What is deleted, for the confirmation and the notice: 'freeze period'. */
  noun: string;
  examples: string[];
  /** Options beyond --project (e.g. --mr). */
  options?: OptionDef[];
  /** The record's API path. */
  path(project: string, id: number, opts: O): string;
  /** Where the record lives, for messages; default "project P". */
  where?(project: string, opts: O): string;
}

/**
 * `<resource> delete <id> --project P`: validates the id, confirms (--yes off a terminal), sends DELETE, and says
 * what was deleted on stderr. The shape every project-scoped delete shares.
 */
export function defineProjectDelete<O extends { project?: string; id: string }>(spec: ProjectDeleteSpec<O>): CommandDef<O> {
  return defineCommand<O>({
    examples: spec.examples,
    args: ['<id>'],
    options: [projectOption, ...(spec.options ?? [])],
    async run(opts, ctx) {
      const id = parseInteger(`${spec.noun} id`, 1)(opts.id);
      const project = ctx.project(opts.project);
      const where = spec.where?.(project, opts) ?? `project ${project}`;
      await ctx.confirm(`Delete ${spec.noun} ${id} of ${where}?`);
      await ctx.api.delete(spec.path(project, id, opts));
      ctx.io.note(`Deleted ${spec.noun} ${id} of ${where}`);
      return undefined;
    },
  });
}
