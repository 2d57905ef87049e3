import { maskUrlCredentials } from './values.js';
import { pullMirror } from './resource.js';
import { singletonCommands } from '../../cli/resource-commands.js';
import { readSecret } from '../../cli/secrets.js';
import { UsageError } from '../../errors.js';

export default singletonCommands(pullMirror, {
  get: {
    description: 'The pull mirror of a project and the state of its last update; credentials in the URL come back masked.',
    examples: ['forgectl mirror pull get --project acme/web', 'forgectl mirror pull get --project acme/web --fields update_status,last_error'],
  },
  set: {
    description:
      'Configures where the project pulls from. Prefer --auth-user with --auth-password-stdin to credentials inside --url (argv is visible to other users); ' +
      'either way they are never printed: the service masks them and --verbose/--dry-run redact them. --branch-regex turns --only-protected-branches off.',
    examples: [
      "printf '%s\\n' \"$MIRROR_TOKEN\" | forgectl mirror pull set --project acme/api --url https://src.example.com/x.git --auth-user mirror-bot --auth-password-stdin --enabled",
      "forgectl mirror pull set --project acme/api --branch-regex '^release/' --overwrite-diverged --yes",
    ],
    omit: ['auth_password'],
    options: [{ flags: '--auth-password-stdin', description: 'read the password or token for the source repository from stdin', localFile: true }],
    nothingHint: 'give --url, --enabled or another setting',
    async prepare(body, opts, ctx) {
      if (body.mirror_branch_regex && body.only_mirror_protected_branches) throw new UsageError('--branch-regex cannot be combined with --only-protected-branches');
      if (body.mirror_branch_regex) body.only_mirror_protected_branches = false;
      if (opts.authPasswordStdin) body.auth_password = await readSecret(ctx, '--auth-password-stdin', { stdin: true });
      if (typeof body.url === 'string' && /^[^:]+:\/\/[^/@]*:[^/@]*@/.test(body.url)) {
        ctx.io.warn('the password in --url is visible to other users of this machine (ps, shell history); prefer --auth-user with --auth-password-stdin');
      }
    },
    question: (body, where) => `Configure pull mirroring of ${where}${typeof body.url === 'string' ? ` from ${maskUrlCredentials(body.url)}` : ''}? Mirror updates can change its branches.`,
  },
});
