import { PUSH_RULE_BOOLEAN_FIELDS, PUSH_RULE_REGEX_FIELDS, re2Problem } from '../../api/push-rules.js';
import { projectFor, requireTier, Role } from '../auth.js';
import { defineTable } from '../db.js';
import { bool, created, errors, HttpError, noContent, ok, type SandboxRequest } from '../http.js';
import type { Project } from '../model.js';
import type { SandboxModule } from '../module.js';

type RegexField = (typeof PUSH_RULE_REGEX_FIELDS)[number];
type BooleanField = (typeof PUSH_RULE_BOOLEAN_FIELDS)[number];

export type PushRule = { id: number; project_id: number; created_at: string; max_file_size: number } & Record<RegexField, string | null> & Record<BooleanField, boolean>;

export const pushRuleTable = defineTable<PushRule>('push_rules');

const ALL_FIELDS = [...PUSH_RULE_REGEX_FIELDS, ...PUSH_RULE_BOOLEAN_FIELDS, 'max_file_size'];

const present = (r: PushRule) => ({
  id: r.id,
  project_id: r.project_id,
  commit_message_regex: r.commit_message_regex,
  commit_message_negative_regex: r.commit_message_negative_regex,
  branch_name_regex: r.branch_name_regex,
  deny_delete_tag: r.deny_delete_tag,
  created_at: r.created_at,
  member_check: r.member_check,
  prevent_secrets: r.prevent_secrets,
  author_email_regex: r.author_email_regex,
  file_name_regex: r.file_name_regex,
  max_file_size: r.max_file_size,
  commit_committer_check: r.commit_committer_check,
  commit_committer_name_check: r.commit_committer_name_check,
  reject_unsigned_commits: r.reject_unsigned_commits,
  reject_non_dco_commits: r.reject_non_dco_commits,
});

/** Premium, Maintainer, and the project's rule if any. */
function context(req: SandboxRequest): { project: Project; rule: PushRule | undefined } {
  requireTier(req, 'premium');
  const project = projectFor(req, Role.maintainer);
  return { project, rule: pushRuleTable(req.db).find((r) => r.project_id === project.id) };
}

/** Applies the request's fields to a rule as the service validates them (Grape at_least_one_of, then the model). */
function apply(req: SandboxRequest, rule: PushRule): void {
  if (!ALL_FIELDS.some((field) => req.input[field] !== undefined)) {
    throw errors.error(400, `${ALL_FIELDS.join(', ')} are missing, at least one parameter must be provided`);
  }
  const problems: Record<string, string[]> = {};
  for (const field of PUSH_RULE_REGEX_FIELDS) {
    const value = req.input[field];
    if (value === undefined) continue;
    const text = value === null ? '' : String(value);
    const problem = text ? re2Problem(text) : undefined;
    if (problem) problems[field] = [`not valid RE2 syntax: ${problem}`];
    else rule[field] = text || null;
  }
  for (const field of PUSH_RULE_BOOLEAN_FIELDS) {
    if (req.input[field] !== undefined) rule[field] = Boolean(bool(req.input[field]));
  }
  if (req.input.max_file_size !== undefined) {
    const size = Number(req.input.max_file_size);
    if (!Number.isInteger(size)) throw errors.invalid('max_file_size');
    if (size < 0) problems.max_file_size = ['must be greater than or equal to 0'];
    else rule.max_file_size = size;
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
}

export const pushRules: SandboxModule = {
  routes(api) {
    // No rule yet: 200 with a JSON null body, as the service presents a nil rule.
    api.get('/projects/:id/push_rule', (req) => {
      const { rule } = context(req);
      return ok(rule ? present(rule) : null);
    });

    api.post('/projects/:id/push_rule', (req) => {
      const { project, rule: existing } = context(req);
      if (existing) throw new HttpError(422, { error: 'Project push rule exists' });
      const rule = {
        id: 0,
        project_id: project.id,
        created_at: req.now().toISOString(),
        max_file_size: 0,
        ...Object.fromEntries(PUSH_RULE_REGEX_FIELDS.map((f) => [f, null])),
        ...Object.fromEntries(PUSH_RULE_BOOLEAN_FIELDS.map((f) => [f, false])),
      } as PushRule;
      apply(req, rule);
      rule.id = req.db.nextId('push_rules');
      pushRuleTable(req.db).push(rule);
      return created(present(rule));
    });

    api.put('/projects/:id/push_rule', (req) => {
      const { rule } = context(req);
      if (!rule) throw errors.notFound('Push Rule');
      const next = { ...rule };
      apply(req, next);
      Object.assign(rule, next);
      return ok(present(rule));
    });

    api.delete('/projects/:id/push_rule', (req) => {
      const { rule } = context(req);
      if (!rule) throw errors.notFound('Push Rule');
      pushRuleTable(req.db).splice(pushRuleTable(req.db).indexOf(rule), 1);
      return noContent();
    });
  },
};
