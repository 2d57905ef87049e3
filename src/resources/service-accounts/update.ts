import { routeOf, updatableFields } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { fieldOptions, fieldValues, flagOf, placementOptions } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';
import { accountOwner, findServiceAccount } from './find.js';
import { serviceAccounts } from './resource.js';

const fields = updatableFields(serviceAccounts);

/** What each option sets here: the declaration's help tells what create makes up when it is not given, which update does not. */
const CHANGES: Record<string, string> = {
  username: 'the new username (its tokens keep working)',
  name: 'the new display name',
  email: 'the new email address; the service asks to confirm one that is not a no-reply address unless confirmation is off',
};

export default defineCommand<{ account: string }>({
  effect: 'write',
  description: [
    'The account is named by its username or ID. A new email other than a no-reply one may wait for its confirmation',
    '(unconfirmed_email) unless the instance confirms none. Renaming changes nothing of its tokens. Give --instance or --group.',
  ].join(' '),
  examples: [
    "forgectl service-accounts update service_account_deploy --instance --name 'Deploy bot (prod)'",
    'forgectl service-accounts update acme-release --group acme --username acme-releases',
  ],
  args: [{ spec: '<account>', description: 'the service account\'s username or ID' }],
  options: [...placementOptions(serviceAccounts), ...fieldOptions(fields).map((option) => ({ ...option, description: CHANGES[/^--([\w-]+)/.exec(option.flags)![1]] ?? option.description }))],
  async run(opts, ctx) {
    const changes = fieldValues(fields, opts);
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new UsageError('nothing to change', `give ${fields.map(([name, field]) => flagOf(name, field)).join(', ')}`);
    }
    const { resource, params, owner } = accountOwner(opts, ctx);
    const account = await findServiceAccount(ctx.api, owner, opts.account);
    return ctx.api.call(routeOf(resource, 'update'), { ...params, ...changes, user: account.id });
  },
});
