import { checkEmail, checkUsername, users } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { ApiError, UsageError } from '../../errors.js';
import { parseInteger } from '../../parse.js';

interface Options {
  username: string;
  name: string;
  email: string;
  passwordStdin?: boolean;
  resetPassword?: boolean;
  forceRandomPassword?: boolean;
  skipConfirmation?: boolean;
  admin?: boolean;
  external?: boolean;
  canCreateGroup?: boolean;
  projectsLimit?: number;
  note?: string;
}

/** The service's shortest password. */
const MIN_PASSWORD = 8;

/** The service's answer to a taken username or email, with where to look. */
function explained(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 409) return error;
  return error.explained(error.message, /email/i.test(error.message) ? 'find its owner with: forgectl users list --search EMAIL' : 'find its owner with: forgectl users get USERNAME');
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Creates an account (administrators). The password never comes from the command line: --password-stdin reads it',
    '(piped, or typed at a hidden prompt on a terminal), --reset-password mails the user a link to set one, or',
    '--force-random-password sets one nobody knows (for accounts that sign in through SSO only). A password shorter than',
    `${MIN_PASSWORD} characters is refused before anything is sent. A username or email already taken: exit 6.`,
  ].join(' '),
  examples: [
    'forgectl users create --username dana2 --name "Dana Two" --email dana2@example.com --reset-password',
    'printf \'%s\\n\' "$PASSWORD" | forgectl users create --username svc-ci --name "CI account" --email ci@example.com --password-stdin --skip-confirmation',
  ],
  options: [
    { flags: '--username <name>', description: 'the username (letters, digits, _ - .)', required: true, parse: (text: string) => checkUsername(text, '--username') },
    { flags: '--name <name>', description: 'the full name', required: true },
    { flags: '--email <address>', description: 'the primary email', required: true, parse: (text: string) => checkEmail(text, '--email') },
    { flags: '--password-stdin', description: 'read the password from stdin (a hidden prompt on a terminal)', localFile: true },
    { flags: '--reset-password', description: 'mail the user a link to set a password' },
    { flags: '--force-random-password', description: 'set a random password nobody knows' },
    { flags: '--skip-confirmation', description: 'take the email as confirmed' },
    { flags: '--admin', description: 'make the user an administrator' },
    { flags: '--external', description: 'an external user (sees only the projects they are a member of)' },
    { flags: '--no-can-create-group', description: 'the user may not create top-level groups' },
    { flags: '--projects-limit <n>', description: 'how many personal projects the user may create', parse: parseInteger('--projects-limit', 0) },
    { flags: '--note <text>', description: 'a note for administrators' },
  ],
  columns: ['id', 'username', 'name', 'email', 'state'],
  recordFields: Object.keys(users.fields),
  async run(opts, ctx) {
    const ways = [Boolean(opts.passwordStdin), Boolean(opts.resetPassword), Boolean(opts.forceRandomPassword)].filter(Boolean).length;
    if (ways !== 1) throw new UsageError(ways ? 'give one of --password-stdin, --reset-password and --force-random-password' : 'how does the user get a password? give --password-stdin, --reset-password or --force-random-password');
    const password = opts.passwordStdin ? await readSecret(ctx, 'Password of the new user', { stdin: true }) : undefined;
    if (password !== undefined && password.length < MIN_PASSWORD) throw new UsageError(`the password is too short (at least ${MIN_PASSWORD} characters)`, 'nothing was sent');
    const created = await ctx.api.call(users.routes.create, {
      username: opts.username,
      name: opts.name,
      email: opts.email,
      password,
      reset_password: opts.resetPassword || undefined,
      force_random_password: opts.forceRandomPassword || undefined,
      skip_confirmation: opts.skipConfirmation || undefined,
      admin: opts.admin || undefined,
      external: opts.external || undefined,
      can_create_group: opts.canCreateGroup === false ? false : undefined,
      projects_limit: opts.projectsLimit,
      note: opts.note,
    }).catch((error: unknown) => {
      throw explained(error);
    });
    ctx.io.note(`Created user ${opts.username}`);
    return created;
  },
});
