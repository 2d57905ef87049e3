import { defineCommand } from '../../cli/command.js';
import { sshKeys } from './resource.js';
import { parseInteger } from '../../parse.js';

export default defineCommand<{ id: string }>({
  effect: 'read',
  description: 'An SSH key or deploy key with its owner. Administrators only.',
  examples: ['forgectl keys get 2', 'forgectl keys get 2 --fields title,user.username'],
  args: [{ spec: '<id>', description: 'the SSH key\'s ID' }],
  async run(opts, ctx) {
    return ctx.api.call(sshKeys.parents.instance.routes.get, { key_id: parseInteger('key id', 1)(opts.id) });
  },
});
