import { errors, ok } from '../http.js';
import type { AccessToken } from '../model.js';
import type { SandboxModule } from '../module.js';

export const SANDBOX_VERSION = '17.11.0-ee';

export function presentPersonalToken(token: AccessToken): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    revoked: token.revoked,
    created_at: token.created_at,
    description: token.description,
    scopes: token.scopes,
    user_id: token.user_id,
    last_used_at: token.last_used_at,
    active: token.active,
    expires_at: token.expires_at,
  };
}

export const core: SandboxModule = {
  routes(api) {
    api.get('/version', () => ok({ version: SANDBOX_VERSION, revision: 'sandbox', kas: { enabled: false, externalUrl: null, version: null }, enterprise: true }));

    api.get('/personal_access_tokens/self', (req) => {
      const token = req.token!;
      if (token.kind === 'job' || token.kind === 'oauth') throw errors.message(405, '405 Method Not Allowed');
      return ok(presentPersonalToken(token));
    }, { scope: 'none' });

  },
};
