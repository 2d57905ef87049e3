import { checkScope, findGroup, groupFor, projectFor, requireUser } from '../auth.js';
import { errors, ok, bool, type SandboxRequest } from '../http.js';
import { projects, users, type AccessToken } from '../model.js';
import { paginate } from '../pagination.js';
import { presentGroup, presentProject, presentUser } from '../present.js';
import type { SandboxModule } from './index.js';

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

/** Users visible to the caller with the filters every user may use (the administrator's filters extend this). */
export function filterUsers(req: SandboxRequest) {
  const q = req.query;
  let list = users(req.db).filter((u) => !u.bot || req.user?.is_admin);
  if (q.username) list = list.filter((u) => u.username.toLowerCase() === String(q.username).toLowerCase());
  if (q.search) {
    const s = String(q.search).toLowerCase();
    list = list.filter((u) => u.username.toLowerCase().includes(s) || u.name.toLowerCase().includes(s) || (req.user?.is_admin && u.email.toLowerCase() === s));
  }
  if (bool(q.active)) list = list.filter((u) => u.state === 'active');
  if (bool(q.blocked)) list = list.filter((u) => u.state === 'blocked');
  if (bool(q.external)) list = list.filter((u) => u.external);
  return list;
}

export const core: SandboxModule = {
  routes(api) {
    api.get('/version', () => ok({ version: SANDBOX_VERSION, revision: 'sandbox', kas: { enabled: false, externalUrl: null, version: null }, enterprise: true }));

    api.get('/user', (req) => ok(presentUser(requireUser(req), req.rootUrl, req.user)), { scope: 'read_user' });

    api.get('/personal_access_tokens/self', (req) => {
      const token = req.token!;
      if (token.kind === 'job' || token.kind === 'oauth') throw errors.message(405, '405 Method Not Allowed');
      return ok(presentPersonalToken(token));
    }, { scope: 'none' });

    api.get('/users', (req) => {
      const list = filterUsers(req).sort((a, b) => b.id - a.id);
      return paginate(req, list, {
        keyset: { orderBy: ['id', 'name', 'username', 'created_at', 'updated_at'], id: (u) => u.id },
        offsetLimit: true,
        present: (u) => presentUser(u, req.rootUrl, req.user),
      });
    }, { scope: 'read_user' });

    api.get('/users/:id', (req) => {
      const user = users(req.db).find((u) => String(u.id) === req.params.id);
      if (!user) throw errors.notFound('User');
      return ok(presentUser(user, req.rootUrl, req.user));
    }, { scope: 'read_user' });

    api.get('/projects/:id', (req) => ok(presentProject(projectFor(req), req.db, req.rootUrl)));
    api.get('/groups/:id', (req) => ok(presentGroup(groupFor(req), req.rootUrl)));
    api.get('/groups', (req) => {
      checkScope(req, 'read');
      const list = [...new Set(projects(req.db).map((p) => p.namespace_id))].map((id) => findGroup(req.db, String(id)));
      return paginate(req, list, { present: (g) => presentGroup(g, req.rootUrl) });
    });
  },
};
