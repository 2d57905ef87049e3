import { defineCommand, type OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { PUSH_RULE_BOOLEAN_FIELDS, PUSH_RULE_REGEX_FIELDS, re2Problem } from '../../api/push-rules.js';
import { pushRulePath } from './shared.js';

const flag = (field: string): string => field.replace(/_/g, '-');
const camel = (field: string): string => field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const REGEX_HELP: Record<string, string> = {
  commit_message_regex: 'commit messages must match',
  commit_message_negative_regex: 'commit messages must not match',
  branch_name_regex: 'branch names must match',
  author_email_regex: 'commit author emails must match',
  file_name_regex: 'committed file names must not match',
};

const BOOLEAN_HELP: Record<string, string> = {
  deny_delete_tag: 'deny deleting tags',
  member_check: 'only project members may be commit authors',
  prevent_secrets: 'reject files that are likely to contain secrets',
  commit_committer_check: 'committer email must be a verified email of the pusher',
  commit_committer_name_check: 'commit author name must match the pusher',
  reject_unsigned_commits: 'reject unsigned commits',
  reject_non_dco_commits: 'reject commits without a DCO sign-off',
};

function parseRegex(field: string) {
  return (value: string): string => {
    const problem = value ? re2Problem(value) : undefined;
    if (problem) throw new UsageError(`--${flag(field)} "${value}" is not a valid regular expression: ${problem}`);
    return value;
  };
}

const options: OptionDef[] = [
  projectOption,
  ...PUSH_RULE_REGEX_FIELDS.map((field) => ({ flags: `--${flag(field)} <regex>`, description: `${REGEX_HELP[field]} (RE2; "" clears)`, parse: parseRegex(field) })),
  ...PUSH_RULE_BOOLEAN_FIELDS.flatMap((field) => [
    { flags: `--${flag(field)}`, description: BOOLEAN_HELP[field] },
    { flags: `--no-${flag(field)}`, description: `turn off --${flag(field)}` },
  ]),
  { flags: '--max-file-size <mb>', description: 'largest file a push may add, in MB (0 = no limit)', parse: parseInteger('--max-file-size', 0) },
];

export default defineCommand<Record<string, unknown> & { project?: string }>({
  description: 'Creates the push rule, or updates the fields given when the project has one. Regexes are checked to compile before sending. Premium and Ultimate.',
  examples: [
    'forgectl push-rule set --project acme/api --max-file-size 10 --deny-delete-tag',
    "forgectl push-rule set --project acme/api --branch-name-regex '^(main|feature/.+)$' --no-member-check",
  ],
  options,
  async run(opts, ctx) {
    const body: Record<string, unknown> = {};
    for (const field of [...PUSH_RULE_REGEX_FIELDS, ...PUSH_RULE_BOOLEAN_FIELDS, 'max_file_size']) {
      if (opts[camel(field)] !== undefined) body[field] = opts[camel(field)];
    }
    if (!Object.keys(body).length) throw new UsageError('nothing to set', 'give at least one rule, for example --max-file-size 10 or --deny-delete-tag');
    const path = pushRulePath(ctx.project(opts.project));
    const existing = await ctx.api.get(path);
    return existing ? ctx.api.put(path, body) : ctx.api.post(path, body);
  },
});
