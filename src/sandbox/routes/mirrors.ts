import { maskUrlCredentials, mirrorUrlProblem } from '../../api/mirrors.js';
import { re2Problem } from '../../api/push-rules.js';
import { findProject, projectFor, requireTier, Role } from '../auth.js';
import { defineTable } from '../db.js';
import { accepted, bool, errors, ok, type SandboxRequest } from '../http.js';
import type { Project } from '../model.js';
import type { SandboxModule } from '../module.js';

export type UpdateStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed';

export interface PullMirror {
  id: number;
  project_id: number;
  /** As given, credentials included: never sent back unmasked. */
  url: string | null;
  auth_user: string | null;
  auth_password: string | null;
  enabled: boolean;
  mirror_trigger_builds: boolean;
  only_mirror_protected_branches: boolean | null;
  mirror_overwrites_diverged_branches: boolean;
  mirror_branch_regex: string | null;
  update_status: UpdateStatus;
  last_error: string | null;
  last_update_at: string | null;
  last_update_started_at: string | null;
  last_successful_update_at: string | null;
}

export const pullMirrorTable = defineTable<PullMirror>('pull_mirrors');

const PARAMS = ['enabled', 'url', 'auth_user', 'auth_password', 'mirror_trigger_builds', 'only_mirror_protected_branches', 'mirror_overwrites_diverged_branches', 'mirror_branch_regex'];

const present = (m: PullMirror) => ({
  id: m.id,
  last_error: m.last_error,
  last_successful_update_at: m.last_successful_update_at,
  last_update_at: m.last_update_at,
  last_update_started_at: m.last_update_started_at,
  update_status: m.update_status,
  url: m.url === null ? null : maskUrlCredentials(m.url),
  enabled: m.enabled,
  mirror_trigger_builds: m.mirror_trigger_builds,
  only_mirror_protected_branches: m.only_mirror_protected_branches,
  mirror_overwrites_diverged_branches: m.mirror_overwrites_diverged_branches,
  mirror_branch_regex: m.mirror_branch_regex,
});

function context(req: SandboxRequest): { project: Project; mirror: PullMirror | undefined } {
  requireTier(req, 'premium');
  const project = projectFor(req, Role.maintainer);
  return { project, mirror: pullMirrorTable(req.db).find((m) => m.project_id === project.id) };
}

function notMirrored(): Error {
  return errors.message(400, 'The project is not mirrored');
}

/**
 * Mirror updates run in the background; each read moves a pending update one step on (scheduled → started →
 * finished), so clients that poll see the same sequence a real instance shows. Hosts under .invalid fail.
 */
function advance(mirror: PullMirror, now: Date): void {
  const at = now.toISOString();
  if (mirror.update_status === 'scheduled') {
    mirror.update_status = 'started';
    mirror.last_update_started_at = at;
  } else if (mirror.update_status === 'started') {
    mirror.last_update_at = at;
    const host = mirror.url ? new URL(mirror.url).hostname : '';
    if (host.endsWith('.invalid')) {
      mirror.update_status = 'failed';
      mirror.last_error = `fatal: unable to access '${maskUrlCredentials(mirror.url!)}': Could not resolve host: ${host}`;
    } else {
      mirror.update_status = 'finished';
      mirror.last_error = null;
      mirror.last_successful_update_at = at;
    }
  }
}

function schedule(mirror: PullMirror): void {
  mirror.update_status = 'scheduled';
}

export const mirrors: SandboxModule = {
  routes(api) {
    api.get('/projects/:id/mirror/pull', (req) => {
      const { mirror } = context(req);
      if (!mirror?.enabled) throw notMirrored();
      advance(mirror, req.now());
      return ok(present(mirror));
    });

    api.put('/projects/:id/mirror/pull', (req) => {
      const { project, mirror: existing } = context(req);
      const input = req.input;
      if (!PARAMS.some((name) => input[name] !== undefined)) {
        throw errors.error(400, `${PARAMS.join(', ')} are missing, at least one parameter must be provided`);
      }
      const mirror: PullMirror = existing ? { ...existing } : {
        id: req.db.nextId('pull_mirrors'), project_id: project.id, url: null, auth_user: null, auth_password: null, enabled: false,
        mirror_trigger_builds: false, only_mirror_protected_branches: null, mirror_overwrites_diverged_branches: false, mirror_branch_regex: null,
        update_status: 'none', last_error: null, last_update_at: null, last_update_started_at: null, last_successful_update_at: null,
      };
      const wasEnabled = mirror.enabled;
      if (input.url !== undefined) {
        const problem = mirrorUrlProblem(String(input.url));
        if (problem) throw errors.message(400, `Url is blocked: ${problem}`);
        mirror.url = String(input.url);
      }
      for (const key of ['auth_user', 'auth_password'] as const) if (input[key] !== undefined) mirror[key] = input[key] === null ? null : String(input[key]);
      for (const key of ['enabled', 'mirror_trigger_builds', 'only_mirror_protected_branches', 'mirror_overwrites_diverged_branches'] as const) {
        if (input[key] !== undefined) mirror[key] = Boolean(bool(input[key]));
      }
      if (input.mirror_branch_regex !== undefined) {
        const regex = input.mirror_branch_regex === null ? '' : String(input.mirror_branch_regex);
        const problem = regex ? re2Problem(regex) : undefined;
        if (problem) throw errors.validation({ mirror_branch_regex: [`not valid RE2 syntax: ${problem}`] });
        mirror.mirror_branch_regex = regex || null;
      }
      if (mirror.mirror_branch_regex && mirror.only_mirror_protected_branches) {
        throw errors.message(400, 'Mirror branch regex cannot be used together with only mirror protected branches');
      }
      if (mirror.enabled && !mirror.url) throw errors.validation({ import_url: ["can't be blank"] });
      // Enabling mirroring schedules the first update; enabled=false removes mirroring.
      if (mirror.enabled && !wasEnabled) schedule(mirror);
      if (!mirror.enabled) mirror.update_status = 'none';
      if (existing) Object.assign(existing, mirror);
      else pullMirrorTable(req.db).push(mirror);
      return ok(present(mirror));
    });

    // Real instances answer 200 (older code) or 202 (newer docs); the sandbox follows the docs.
    api.post('/projects/:id/mirror/pull', (req) => {
      const { mirror } = context(req);
      if (!mirror?.enabled) throw notMirrored();
      if (mirror.update_status !== 'scheduled' && mirror.update_status !== 'started') schedule(mirror);
      return accepted();
    });
  },

  seed(db, { now }) {
    // acme/web follows an upstream repository; its credentials show up masked.
    const at = now.toISOString();
    pullMirrorTable(db).push({
      id: db.nextId('pull_mirrors'), project_id: findProject(db, 'acme/web').id,
      url: 'https://mirror-bot:upstream-secret@git.upstream.example.com/acme/web.git', auth_user: null, auth_password: null, enabled: true,
      mirror_trigger_builds: false, only_mirror_protected_branches: true, mirror_overwrites_diverged_branches: false, mirror_branch_regex: null,
      update_status: 'finished', last_error: null, last_update_at: at, last_update_started_at: at, last_successful_update_at: at,
    });
  },
};
