import type { CommandDef } from '../../cli/command.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { accountOwner } from './find.js';
import { serviceAccounts } from './resource.js';

/**
 * list and create, generated from the declaration (--instance or --group selects whose); update and delete are
 * written by hand (update.ts, delete.ts): the service reads no single account, so they find it by name or ID first.
 */
const generated = plainCommands(serviceAccounts, {
  list: {
    description: 'The instance\'s service accounts (administrators), or a top-level group\'s (its Owners); newest first.',
    examples: ['forgectl service-accounts list --instance', 'forgectl service-accounts list --group acme --order-by username --sort asc -o json'],
  },
  create: {
    description: [
      'What is not given the service makes up: the username (service_account_…), the name and a no-reply email. A',
      'group\'s accounts are made in a top-level group (the instance may have to allow its Owners to make them). Give',
      'it a token next: forgectl tokens create --service-account NAME.',
    ].join(' '),
    examples: [
      "forgectl service-accounts create --instance --username deploy-bot --name 'Deploy bot'",
      'forgectl service-accounts create --group acme --username acme-release -o json',
    ],
  },
});

/** The generated verb, a subgroup refused before anything is sent. */
const topLevelOnly = (command: CommandDef): CommandDef => ({
  ...command,
  run: (opts, ctx) => {
    accountOwner(opts, ctx);
    return command.run(opts, ctx);
  },
});

export default { list: topLevelOnly(generated.list!), create: topLevelOnly(generated.create!) };
