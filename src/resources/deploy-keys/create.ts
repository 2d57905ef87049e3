import { deployKeys } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { fieldOptions, fieldValues } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';
import { checkNotPast } from '../../parse.js';
import { publicKeyFile, publicKeyFrom } from '../keys/public-key.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFgrWUVS92aTH7L9CyzOEGGVlhcKMxiHM94X5TZUM2WI release@ci';
const FIELDS = (['title', 'can_push', 'expires_at'] as const).map((name) => [name, deployKeys.fields[name]] as [string, (typeof deployKeys.fields)[typeof name]]);

type Options = { project?: string; key?: string; keyFile?: string; expiresAt?: string } & Record<string, unknown>;

export default defineCommand<Options>({
  description: [
    'The public key comes from --key-file (the .pub file) or --key; it is checked here first: a private key is refused',
    'without being sent or shown, and so is an expiry in the past. The same public key already enabled elsewhere is',
    'enabled here too (one key, many projects). Needs the Maintainer role.',
  ].join(' '),
  effect: 'write',
  examples: [
    'forgectl deploy-keys create --project acme/web --title "release bot" --key-file deploy.pub --can-push',
    `forgectl deploy-keys create --project acme/web --title "release bot" --key "${KEY}" --expires-at 2030-01-31`,
  ],
  options: [
    projectOption,
    ...fieldOptions(FIELDS, { required: (field) => field === deployKeys.fields.title }),
    { flags: '--key <public-key>', description: 'the OpenSSH public key itself ("ssh-ed25519 AAAA… comment")' },
    { flags: '--key-file <path>', description: 'the OpenSSH public key file (.pub)', localFile: true },
  ],
  recordFields: Object.keys(deployKeys.fields),
  async run(opts, ctx) {
    if ((opts.key === undefined) === (opts.keyFile === undefined)) throw new UsageError(opts.key === undefined ? 'which key? give --key-file PATH (the .pub file) or --key' : 'give --key-file or --key, not both');
    const { line } = opts.keyFile !== undefined ? publicKeyFile(opts.keyFile) : publicKeyFrom(opts.key!, '--key');
    if (opts.expiresAt !== undefined) checkNotPast('--expires-at', opts.expiresAt, ctx.now());
    const project = ctx.project(opts.project);
    return ctx.api.call(deployKeys.routes.create, { project, ...fieldValues(FIELDS, opts), key: line });
  },
});
