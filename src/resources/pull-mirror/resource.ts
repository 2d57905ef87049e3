import { UsageError } from '../../errors.js';
import { f, kindField } from '../../api/fields.js';
import { maskUrlCredentials, mirrorUrlProblem } from './values.js';
import { re2Regex } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/** A repository URL the service can pull from (http, https, ssh, git). */
const mirrorUrl = kindField<string>({
  name: 'mirror url',
  type: 'string',
  placeholder: '<url>',
  parse(text, label) {
    const problem = mirrorUrlProblem(text);
    if (problem) throw new UsageError(`${label} ${maskUrlCredentials(text)} cannot be mirrored: ${problem}`);
    return text;
  },
});

/**
 * The pull mirror of a project (Premium). GET answers 404 when the project does not mirror; PUT sets it up or
 * changes it, and `enabled: false` removes it. Credentials are write-only: the URL comes back masked.
 */
export const pullMirror = defineSingleton({
  noun: 'pull mirror',
  command: 'mirror pull',
  parent: 'project',
  routes: {
    get: 'GET /projects/{project}/mirror/pull',
    update: 'PUT /projects/{project}/mirror/pull',
    sync: 'POST /projects/{project}/mirror/pull',
  },
  fields: {
    id: f.int({ readOnly: true }),
    last_error: f.string({ readOnly: true, nullable: true }),
    last_successful_update_at: f.time({ readOnly: true, nullable: true }),
    last_update_at: f.time({ readOnly: true, nullable: true }),
    last_update_started_at: f.time({ readOnly: true, nullable: true }),
    update_status: f.enum(['none', 'scheduled', 'started', 'finished', 'failed'], { readOnly: true, default: 'none' }),
    url: mirrorUrl({ help: 'the repository to pull from (credentials in it are masked in answers)', nullable: true }),
    enabled: f.bool({ default: false, help: 'mirroring is on (false removes it)' }),
    auth_user: f.string({ writeOnly: true, nullable: true, help: 'user name for the source repository', placeholder: '<user>' }),
    auth_password: f.secret({ writeOnly: true, nullable: true, help: 'password or token for the source repository' }),
    mirror_trigger_builds: f.bool({ default: false, flag: 'trigger-builds', help: 'mirror updates trigger pipelines' }),
    only_mirror_protected_branches: f.bool({ nullable: true, flag: 'only-protected-branches', help: 'mirror protected branches only' }),
    mirror_overwrites_diverged_branches: f.bool({ default: false, flag: 'overwrite-diverged', help: 'overwrite branches that diverged from the source' }),
    mirror_branch_regex: re2Regex({ nullable: true, flag: 'branch-regex', help: 'mirror only branches matching this (needs only_mirror_protected_branches off)' }),
  },
  roles: { read: 'maintainer', write: 'maintainer' },
  tier: 'premium',
});
