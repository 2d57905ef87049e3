import { projects } from '../../api/resources/projects.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { settingOptions, settingValues } from './settings.js';

export default defineCommand<Record<string, unknown> & { project?: string }>({
  description: 'Changes the settings given (the others stay): name, path, visibility, default branch, merge method, squash option, pipeline and discussion requirements … Needs the Maintainer role (Owner for visibility and path).',
  examples: [
    'forgectl projects update acme/api --merge-method ff --squash-option default_on --only-allow-merge-if-pipeline-succeeds',
    'forgectl projects update acme/api --no-remove-source-branch-after-merge --description "The API of Acme"',
  ],
  args: ['[project]'],
  options: settingOptions(projects, 'update'),
  async run(opts, ctx) {
    const project = ctx.project(opts.project, 'the project as an argument (forgectl projects update ID|PATH)');
    const values = settingValues(projects, 'update', opts);
    if (!Object.keys(values).length) throw new UsageError('nothing to change: give the settings to set', 'forgectl projects update --help lists them');
    return ctx.api.call(projects.routes.update, { project, ...values });
  },
});
