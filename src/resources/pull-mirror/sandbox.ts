import { maskUrlCredentials, mirrorUrlProblem } from './values.js';
import { re2Problem } from '../../api/fields.js';
import { pullMirror } from './resource.js';
import { findProject } from '../../sandbox/auth.js';
import { singletonModule } from '../../sandbox/singleton.js';
import { accepted, errors } from '../../sandbox/http.js';
import type { PullMirror } from '../../sandbox/model.js';

const notMirrored = (): Error => errors.message(400, 'The project is not mirrored');

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

/**
 * The pull mirror of a project, served from its declaration: answers present the URL masked; a mirror switched off
 * is none (400 "The project is not mirrored"); enabling schedules the first update.
 */
export const mirrors = singletonModule<PullMirror>(pullMirror, {
  absent: () => {
    throw notMirrored();
  },
  present: (mirror) => mirror.enabled,
  computed: (mirror) => ({ url: mirror.url === null ? null : maskUrlCredentials(mirror.url) }),
  onRead: (mirror, req) => advance(mirror, req.now()),
  validate(mirror, req, previous) {
    if (req.input.url !== undefined) {
      const problem = mirrorUrlProblem(String(req.input.url));
      if (problem) throw errors.message(400, `Url is blocked: ${problem}`);
    }
    if (req.input.mirror_branch_regex !== undefined) {
      const problem = mirror.mirror_branch_regex ? re2Problem(mirror.mirror_branch_regex) : undefined;
      if (problem) throw errors.validation({ mirror_branch_regex: [`not valid RE2 syntax: ${problem}`] });
      mirror.mirror_branch_regex ||= null;
    }
    if (mirror.mirror_branch_regex && mirror.only_mirror_protected_branches) {
      throw errors.message(400, 'Mirror branch regex cannot be used together with only mirror protected branches');
    }
    if (mirror.enabled && !mirror.url) throw errors.validation({ import_url: ["can't be blank"] });
    // Enabling mirroring schedules the first update; enabled=false removes mirroring.
    if (mirror.enabled && !previous?.enabled) schedule(mirror);
    if (!mirror.enabled) mirror.update_status = 'none';
  },
  routes(api, find) {
    // Real instances answer 200 (older code) or 202 (newer docs); the sandbox follows the docs.
    api.route(pullMirror.routes.sync, (req) => {
      const mirror = find(req);
      if (!mirror?.enabled) throw notMirrored();
      if (mirror.update_status !== 'scheduled' && mirror.update_status !== 'started') schedule(mirror);
      return accepted();
    });
  },
  seed(db, { now }, insert) {
    // acme/web follows an upstream repository; its credentials show up masked.
    const at = now.toISOString();
    insert(findProject(db, 'acme/web').id, {
      url: 'https://mirror-bot:upstream-secret@git.upstream.example.com/acme/web.git', enabled: true, only_mirror_protected_branches: true,
      update_status: 'finished', last_update_at: at, last_update_started_at: at, last_successful_update_at: at,
    });
  },
});
