import { deployTokens } from './resource.js';
import { overProjectsFile } from '../../cli/fleet-options.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { ownedTokens } from './shared.js';

const { list } = plainCommands(deployTokens, {
  list: {
    description: 'Revoked and expired tokens are listed too (--active leaves them out); the instance list (--instance, administrators) keeps those revoked in the web interface (revoking through the API removes a token). Values are never shown.',
    examples: ['forgectl deploy-tokens list --project acme/api', 'forgectl deploy-tokens list --group acme --active', 'forgectl deploy-tokens list --instance -o json', 'forgectl deploy-tokens list --projects-file services.txt --active'],
  },
});

const { get } = plainCommands(ownedTokens, {
  get: {
    description: 'One deploy token of a project or group: its scopes, expiry and whether it was revoked (never its value).',
    examples: ['forgectl deploy-tokens get 1 --project acme/api', 'forgectl deploy-tokens get 4 --group acme --fields name,scopes,expires_at'],
  },
});

export default overProjectsFile({ list, get });
