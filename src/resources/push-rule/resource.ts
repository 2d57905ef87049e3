import { f, re2Regex } from '../../api/fields.js';
import { defineSingleton } from '../../api/resource.js';

/** The fields of a push rule that hold a regex (RE2; an unset one is null, and "" clears one). */
export const PUSH_RULE_REGEX_FIELDS = ['commit_message_regex', 'commit_message_negative_regex', 'branch_name_regex', 'author_email_regex', 'file_name_regex'] as const;

/**
 * The push rule of a project (Premium): what a push must satisfy. GET answers a JSON null when there is none; a new
 * rule has the declared defaults (switches off, no size limit, no regexes).
 */
export const pushRule = defineSingleton({
  noun: 'push rule',
  command: 'push-rule',
  parent: 'project',
  routes: {
    get: 'GET /projects/{project}/push_rule',
    create: 'POST /projects/{project}/push_rule',
    update: 'PUT /projects/{project}/push_rule',
    delete: 'DELETE /projects/{project}/push_rule',
  },
  fields: {
    id: f.int({ readOnly: true }),
    project_id: f.int({ readOnly: true }),
    commit_message_regex: re2Regex({ help: 'commit messages must match (RE2; "" clears)', nullable: true }),
    commit_message_negative_regex: re2Regex({ help: 'commit messages must not match (RE2; "" clears)', nullable: true }),
    branch_name_regex: re2Regex({ help: 'branch names must match (RE2; "" clears)', nullable: true }),
    deny_delete_tag: f.bool({ default: false, help: 'deny deleting tags' }),
    created_at: f.time({ readOnly: true }),
    member_check: f.bool({ default: false, help: 'only project members may be commit authors' }),
    prevent_secrets: f.bool({ default: false, help: 'reject files that are likely to contain secrets' }),
    author_email_regex: re2Regex({ help: 'commit author emails must match (RE2; "" clears)', nullable: true }),
    file_name_regex: re2Regex({ help: 'committed file names must not match (RE2; "" clears)', nullable: true }),
    max_file_size: f.int({ min: 0, default: 0, help: 'largest file a push may add, in MB (0 = no limit)', placeholder: '<mb>' }),
    commit_committer_check: f.bool({ default: false, help: 'committer email must be a verified email of the pusher' }),
    commit_committer_name_check: f.bool({ default: false, help: 'commit author name must match the pusher' }),
    reject_unsigned_commits: f.bool({ default: false, help: 'refuse commits that are not signed' }),
    reject_non_dco_commits: f.bool({ default: false, help: 'reject commits without a DCO sign-off' }),
  },
  roles: { read: 'maintainer', write: 'maintainer' },
  tier: 'premium',
});
