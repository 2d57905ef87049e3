import { badges } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { fieldOptions, fieldValues } from '../../cli/resource-commands.js';

const urls = Object.entries(badges.fields).filter(([name]) => name === 'link_url' || name === 'image_url');

export default defineCommand<{ project?: string }>({
  effect: 'read',
  description: 'Shows how the URLs render for the project, placeholders resolved, without creating a badge. Needs the Maintainer role.',
  examples: ["forgectl badges preview --project acme/api --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{commit_sha}.svg'"],
  options: [projectOption, ...fieldOptions(urls, { required: () => true })],
  async run(opts, ctx) {
    return ctx.api.call(badges.routes.render, { project: ctx.project(opts.project), ...fieldValues(urls, opts) });
  },
});
